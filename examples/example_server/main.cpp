// SPDX-License-Identifier: MIT
// example-server: the conformant, deterministic, read-only MCP server of the README quickstart;
// it exists to be checked by ctxo-conform, so it has no clocks, randomness, files or network.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kit/mcp_server_kit.h"
#include "truncation/js_json.h"
#include "truncation/truncate.h"

namespace {

using ctxo::kit::json;

// Every tool here only reads built-in data, so all carry the same honest hints.
json read_only_annotations(std::string_view title) {
  return json{{"title", title},
              {"readOnlyHint", true},
              {"destructiveHint", false},
              {"idempotentHint", true},
              {"openWorldHint", false}};
}

// Built-in word list, in listing order; includes accents, several scripts (CJK, Hangul, Greek,
// Cyrillic, Hebrew and Arabic, which are right-to-left), a combining mark, and emoji (astral,
// one ZWJ sequence) so a client's UTF-8/UTF-16 handling gets exercised.
const std::vector<std::string>& words() {
  static const std::vector<std::string> list = {
      "apple",       "apricot",       "banana",      "blueberry",       "cherry",
      "coconut",     "date",          "elderberry",  "fig",             "grape",
      "guava",       "kiwi",          "lemon",       "lime",            "mango",
      "melon",       "nectarine",     "olive",       "orange",          "papaya",
      "peach",       "pear",          "pineapple",   "plum",            "quince",
      "raspberry",   "strawberry",    "tangerine",   "watermelon",      "café",
      "crème brûlée", "jalapeño",     "naïve",       "smörgåsbord",     "cafe\u0301 (combining)",
      "寿司 sushi",   "東京 Tokyo",     "日本語",        "中文",              "한국어",
      "Ελληνικά",    "русский",       "עברית",       "العربية",         "🍎 red apple",
      "🍣 sushi",     "🚀 rocket",      "👩‍💻 technologist", "🍉 watermelon", "😀 grinning face",
  };
  return list;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

json echo_tool(const json& args) {
  if (auto known = ctxo::kit::only_known_args(args, {"text"}); !known) {
    return ctxo::kit::error_result(known.error().message);
  }
  auto text = ctxo::kit::string_arg(args, "text");
  if (!text) return ctxo::kit::error_result(text.error().message);
  return ctxo::kit::text_result(*text);
}

constexpr std::int64_t kAddBound = 1000000000;

json add_tool(const json& args) {
  if (auto known = ctxo::kit::only_known_args(args, {"a", "b"}); !known) {
    return ctxo::kit::error_result(known.error().message);
  }
  auto a = ctxo::kit::integer_arg(args, "a", -kAddBound, kAddBound);
  if (!a) return ctxo::kit::error_result(a.error().message);
  auto b = ctxo::kit::integer_arg(args, "b", -kAddBound, kAddBound);
  if (!b) return ctxo::kit::error_result(b.error().message);
  return ctxo::kit::structured_result(json{{"sum", *a + *b}});
}

json search_words_tool(const json& args) {
  if (auto known = ctxo::kit::only_known_args(args, {"query", "limit"}); !known) {
    return ctxo::kit::error_result(known.error().message);
  }
  auto query = ctxo::kit::string_arg(args, "query");
  if (!query) return ctxo::kit::error_result(query.error().message);
  if (ctxo::kit::code_points(*query) < 1) {
    return ctxo::kit::error_result("argument 'query' must contain at least 1 character");
  }
  auto limit = ctxo::kit::integer_arg(args, "limit", 1, 50, 10);
  if (!limit) return ctxo::kit::error_result(limit.error().message);

  const std::string needle = ascii_lower(*query);
  json matches = json::array();
  std::int64_t total = 0;
  for (const auto& word : words()) {
    if (ascii_lower(word).find(needle) == std::string::npos) continue;
    ++total;
    if (static_cast<std::int64_t>(matches.size()) < *limit) matches.push_back(word);
  }
  // Nothing found is an ordinary answer (an empty list), not an error.
  return ctxo::kit::structured_result(json{{"query", *query},
                                           {"matches", std::move(matches)},
                                           {"count", std::min(total, *limit)},
                                           {"total", total}});
}

// A ctxo envelope (seed 000), conformant by construction: the truncation core cuts `results` to
// the largest prefix that fits CTXO_RESPONSE_LIMIT (default 8192 bytes) and fills `_meta`.
json find_words_tool(const json& args) {
  if (auto known = ctxo::kit::only_known_args(args, {"query"}); !known) {
    return ctxo::kit::text_result(ctxo::truncation::to_js_json(json{{"error", true}, {"message", known.error().message}}));
  }
  auto query = ctxo::kit::string_arg(args, "query");
  if (!query || ctxo::kit::code_points(*query) < 1) {
    return ctxo::kit::text_result(
        ctxo::truncation::to_js_json(json{{"error", true}, {"message", "query: must contain at least 1 character"}}));
  }
  // Every word containing the query's first character, in list order: most queries match many.
  const std::string first = ascii_lower(query->substr(0, 1));
  json results = json::array();
  for (std::size_t i = 0; i < words().size(); ++i)
    if (ascii_lower(words()[i]).find(first) != std::string::npos)
      results.push_back(json{{"word", words()[i]}, {"index", i + 1}, {"utf16Length", ctxo::kit::utf16_units(words()[i])}});
  ctxo::truncation::CtxoOptions o;
  o.hint = "Use find_words with a longer query, or search_words with a limit";
  if (const char* env = std::getenv("CTXO_RESPONSE_LIMIT")) {
    char* end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end && *end == '\0' && v > 0) o.limit = static_cast<std::size_t>(v);
  }
  auto envelope = ctxo::truncation::truncate_ctxo(json{{"query", *query}, {"results", std::move(results)}}, o);
  if (!envelope) {
    return ctxo::kit::text_result(
        ctxo::truncation::to_js_json(json{{"error", true}, {"message", envelope.error().message}}));
  }
  return ctxo::kit::text_result(envelope->text);
}

json text_stats_tool(const json& args) {
  if (auto known = ctxo::kit::only_known_args(args, {"text"}); !known) {
    return ctxo::kit::error_result(known.error().message);
  }
  auto text = ctxo::kit::string_arg(args, "text");
  if (!text) return ctxo::kit::error_result(text.error().message);
  return ctxo::kit::structured_result(json{{"utf8Bytes", text->size()},
                                           {"codePoints", ctxo::kit::code_points(*text)},
                                           {"utf16Units", ctxo::kit::utf16_units(*text)}});
}

json integer_schema(std::string_view description) {
  return json{{"type", "integer"}, {"description", description}};
}

std::vector<ctxo::kit::ToolSpec> example_tools() {
  std::vector<ctxo::kit::ToolSpec> tools;
  tools.push_back({"echo", "Echo", "Returns the given text unchanged.",
                   json{{"type", "object"},
                        {"properties", {{"text", {{"type", "string"}, {"description", "Text to return."}}}}},
                        {"required", {"text"}},
                        {"additionalProperties", false}},
                   nullptr, read_only_annotations("Echo"), echo_tool});

  json bounded = integer_schema("An integer between -1000000000 and 1000000000.");
  bounded["minimum"] = -kAddBound;
  bounded["maximum"] = kAddBound;
  tools.push_back({"add", "Add", "Adds two integers; the sum is returned as structured content.",
                   json{{"type", "object"},
                        {"properties", {{"a", bounded}, {"b", bounded}}},
                        {"required", {"a", "b"}},
                        {"additionalProperties", false}},
                   json{{"type", "object"},
                        {"properties", {{"sum", {{"type", "integer"}}}}},
                        {"required", {"sum"}},
                        {"additionalProperties", false}},
                   read_only_annotations("Add"), add_tool});

  json limit = integer_schema("Most matches to return (default 10).");
  limit["minimum"] = 1;
  limit["maximum"] = 50;
  limit["default"] = 10;
  tools.push_back(
      {"search_words", "Search words",
       "Case-insensitive substring search over a built-in list of 50 words in several scripts. "
       "No match gives an empty list.",
       json{{"type", "object"},
            {"properties",
             {{"query", {{"type", "string"}, {"minLength", 1}, {"description", "Substring to look for."}}},
              {"limit", limit}}},
            {"required", {"query"}},
            {"additionalProperties", false}},
       json{{"type", "object"},
            {"properties",
             {{"query", {{"type", "string"}}},
              {"matches", {{"type", "array"}, {"items", {{"type", "string"}}}}},
              {"count", {{"type", "integer"}, {"minimum", 0}}},
              {"total", {{"type", "integer"}, {"minimum", 0}}}}},
            {"required", {"query", "matches", "count", "total"}},
            {"additionalProperties", false}},
       read_only_annotations("Search words"), search_words_tool});

  tools.push_back({"find_words", "Find words (ctxo envelope)",
                   "Words sharing the query's first letter, as a ctxo envelope whose results are cut to "
                   "CTXO_RESPONSE_LIMIT bytes (default 8192) with _meta counts and a hint.",
                   json{{"type", "object"},
                        {"properties", {{"query", {{"type", "string"}, {"minLength", 1}}}}},
                        {"required", {"query"}},
                        {"additionalProperties", false}},
                   nullptr, read_only_annotations("Find words"), find_words_tool});

  tools.push_back({"text_stats", "Text statistics",
                   "Counts the UTF-8 bytes, Unicode code points and UTF-16 code units of a text.",
                   json{{"type", "object"},
                        {"properties", {{"text", {{"type", "string"}}}}},
                        {"required", {"text"}},
                        {"additionalProperties", false}},
                   json{{"type", "object"},
                        {"properties",
                         {{"utf8Bytes", {{"type", "integer"}}},
                          {"codePoints", {{"type", "integer"}}},
                          {"utf16Units", {{"type", "integer"}}}}},
                        {"required", {"utf8Bytes", "codePoints", "utf16Units"}},
                        {"additionalProperties", false}},
                   read_only_annotations("Text statistics"), text_stats_tool});
  return tools;
}

constexpr std::string_view kUsage =
    "usage: example-server [--era legacy|modern|dual] [--page-size N]\n"
    "A deterministic, read-only MCP server over stdio (one JSON-RPC message per line).\n";

}  // namespace

int main(int argc, char** argv) {
  ctxo::kit::ServerOptions options;
  options.name = "ctxo-example-server";
  options.version = "0.1.0";
  options.instructions = "Deterministic demo tools: echo, add, search_words, text_stats.";
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage.data(), stdout);
      return 0;
    }
    if (a == "--era" && has_value) {
      const std::string& v = args[++i];
      if (v == "legacy") {
        options.era = ctxo::kit::Era::kLegacy;
      } else if (v == "modern") {
        options.era = ctxo::kit::Era::kModern;
      } else if (v == "dual") {
        options.era = ctxo::kit::Era::kDual;
      } else {
        std::fprintf(stderr, "error: unknown era '%s'\n%s", v.c_str(), kUsage.data());
        return 2;
      }
    } else if (a == "--page-size" && has_value) {
      const std::string& v = args[++i];
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0 || n > 1000) {
        std::fprintf(stderr, "error: bad --page-size '%s'\n%s", v.c_str(), kUsage.data());
        return 2;
      }
      options.page_size = static_cast<std::size_t>(n);
    } else {
      std::fprintf(stderr, "error: unknown or incomplete option '%s'\n%s", a.c_str(), kUsage.data());
      return 2;
    }
  }

  ctxo::kit::Server server(options);
  for (auto& tool : example_tools()) {
    if (auto added = server.add_tool(std::move(tool)); !added) {
      std::fprintf(stderr, "error: %s\n", added.error().message.c_str());
      return 2;
    }
  }
  return server.run();
}
