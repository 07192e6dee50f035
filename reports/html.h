// SPDX-License-Identifier: MIT
// The single-file HTML report: summary, tool x invariant matrix, filterable findings. Inline CSS
// and JS only (locked down by a Content-Security-Policy with hashes); it references nothing on
// the network. Also the text-escaping helpers the Markdown writer shares.
#pragma once

#include <string>
#include <string_view>

#include "core/display.h"
#include "engine/report.h"

namespace ctxo::reports {

/// The HTML report of a run: one self-contained UTF-8 document. Every piece of server-provided
/// text goes through display_text() and html_escape(); no data is embedded in the script.
std::string to_html(const engine::RunReport& report, const std::string& version);

/// `s` made safe to show a person (core/display.h).
using ctxo::display_text;

/// Escapes & < > " ' for HTML text and attribute values (input should be display_text()).
std::string html_escape(std::string_view s);

/// "850 ms", "3.2 s", "2 min 5 s".
std::string format_duration(long long ms);

}  // namespace ctxo::reports
