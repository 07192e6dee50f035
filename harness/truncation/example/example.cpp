// SPDX-License-Identifier: MIT
// Minimal example: how a C++ MCP server produces a conformant ctxo envelope by construction.
// Prints the text part it would send for a 40-result payload under a 1 KiB limit.
#include <cstdio>
#include <string>

#include "truncation/truncate.h"

int main() {
  using nlohmann::json;
  namespace tr = ctxo::truncation;

  json payload = {{"query", "parse"}, {"results", json::array()}};
  for (int i = 1; i <= 40; ++i)
    payload["results"].push_back({{"file", "src/parser_" + std::to_string(i) + ".cpp"}, {"line", i * 3}, {"col", 5},
                                  {"snippet", "Result<Ast> parse(std::string_view src) { // «ünïcode» " + std::to_string(i)}});

  tr::CtxoOptions options;  // seed-000 truncatable fields, default hint
  options.limit = 1024;     // what CTXO_RESPONSE_LIMIT=1024 would set
  options.hint = "Use search_symbols with a narrower query";
  auto envelope = tr::truncate_ctxo(payload, options);
  if (!envelope) {
    // Never throw across the MCP boundary: convert to the profile's error shape instead.
    json error = {{"error", true}, {"message", envelope.error().message}};
    std::printf("%s\n", tr::to_js_json(error).c_str());
    return 1;
  }
  // This string is the whole `text` of the single content part.
  std::printf("%s\n", envelope->text.c_str());
  std::fprintf(stderr, "field=%s total=%zu returned=%zu truncated=%s bytes=%zu (limit %zu) totalBytes=%zu\n",
               envelope->field.c_str(), envelope->total_items, envelope->returned_items,
               envelope->truncated ? "true" : "false", envelope->text_size, options.limit, envelope->total_bytes);
  return 0;
}
