// SPDX-License-Identifier: MIT
// The single-file HTML report: summary, tool x invariant matrix, filterable findings. Inline CSS
// and JS only (locked down by a Content-Security-Policy with hashes); it references nothing on
// the network. Also the text-escaping helpers the Markdown writer shares.
#pragma once

#include <string>
#include <string_view>

#include "engine/report.h"

namespace ctxo::reports {

/// The HTML report of a run: one self-contained UTF-8 document. Every piece of server-provided
/// text goes through display_text() and html_escape(); no data is embedded in the script.
std::string to_html(const engine::RunReport& report, const std::string& version);

/// `s` made safe to show a person: well-formed UTF-8 kept; invalid bytes, C0/C1 controls, DEL,
/// U+2028/9 and bidirectional overrides become visible escapes (`\x1B`, `\u202E`). With
/// `multiline`, '\n' and '\t' are kept (and "\r\n" becomes '\n'); without, '\n' is escaped too.
std::string display_text(std::string_view s, bool multiline);

/// Escapes & < > " ' for HTML text and attribute values (input should be display_text()).
std::string html_escape(std::string_view s);

/// "850 ms", "3.2 s", "2 min 5 s".
std::string format_duration(long long ms);

}  // namespace ctxo::reports
