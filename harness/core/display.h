// SPDX-License-Identifier: MIT
// Text a server chose, made safe to show a person: the one escaping every console line and report
// applies (reports re-export it as reports::display_text), and the form of a secret the Redactor
// looks for in them.
#pragma once

#include <string>
#include <string_view>

namespace ctxo {

/// `s` made safe to show a person: well-formed UTF-8 kept; invalid bytes, C0/C1 controls, DEL,
/// U+2028/9 and bidirectional overrides become visible escapes (`\x1B`, `\u202E`). With
/// `multiline`, '\n' and '\t' are kept (and "\r\n" becomes '\n'); without, '\n' is escaped too.
std::string display_text(std::string_view s, bool multiline);

}  // namespace ctxo
