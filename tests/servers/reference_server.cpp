// SPDX-License-Identifier: MIT
// reference-server: an MCP server speaking one envelope profile (ctxo, budget, meta,
// truncation-info) over a fixture workspace; conformant by construction (envelopes come from the
// truncation core), and with --defect NAME it breaks exactly one envelope invariant
// (docs/ENVELOPE-CHECKS.md), each marked `if (defect("..."))`.
//
// usage: reference-server --profile ctxo|budget|meta|truncation-info [--defect NAME] [--workspace DIR]
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/text.h"
#include "kit/mcp_server_kit.h"
#include "truncation/js_json.h"
#include "truncation/truncate.h"
#include "truncation/unicode.h"

// ---- the fixture workspace: text files read once, searched line by line, with positions as the
// envelope profiles want them (1-based lines, 1-based UTF-16 columns) ----

namespace ctxo::reference {

namespace fs = std::filesystem;

/// One file of the workspace.
struct SourceFile {
  std::string path;                ///< Relative to the root, '/' separators.
  std::vector<std::string> lines;  ///< Without line terminators; a final newline adds no line.
  std::size_t bytes = 0;           ///< Size on disk.
};

/// One line that matched a search.
struct LineMatch {
  std::size_t file = 0;         ///< Index into Workspace::files().
  std::size_t line = 0;         ///< 1-based line number.
  std::size_t byte_offset = 0;  ///< Where the match starts in the line (UTF-8 bytes).
  std::string text;             ///< The matched text as it is in the file.
  bool exact = false;           ///< True when the whole query matched, false for the first-character match.
};

/// A read-only snapshot of a directory of text files.
class Workspace {
 public:
  /// Reads every regular file under `root` (recursively, sorted by relative path). Error "io"
  /// when `root` is not a readable directory or holds no file.
  [[nodiscard]] static Result<Workspace> load(const std::string& root);

  /// Absolute, normalised root directory.
  const std::string& root() const { return root_; }
  /// Files in path order.
  const std::vector<SourceFile>& files() const { return files_; }
  /// The file with this relative path, or nullptr.
  const SourceFile* find(std::string_view path) const;
  /// Index of the file with this relative path in files(), or files().size() when absent.
  std::size_t index_of(std::string_view path) const;

  /// Every line that contains `query` (ASCII case-insensitively), else its first character
  /// (code point, same folding), one match per line at the first occurrence, in file/line order.
  /// An empty query matches nothing.
  std::vector<LineMatch> search(std::string_view query) const;

 private:
  std::string root_;
  std::vector<SourceFile> files_;
};

/// 1-based UTF-16 column of the byte `byte_offset` of `line`.
std::size_t utf16_column(std::string_view line, std::size_t byte_offset);

namespace fs = std::filesystem;

namespace {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& content) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    std::string line = content.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

}  // namespace

Result<Workspace> Workspace::load(const std::string& root) {
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::absolute(fs::path(root), ec), ec);
  if (ec || !fs::is_directory(base, ec)) {
    return make_error("io", "workspace is not a directory: " + root);
  }
  Workspace ws;
  ws.root_ = base.generic_string();
  fs::recursive_directory_iterator it(base, fs::directory_options::skip_permission_denied, ec);
  if (ec) return make_error("io", "cannot read workspace " + root + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return make_error("io", "cannot read workspace " + root + ": " + ec.message());
    if (!it->is_regular_file(ec)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    if (!in) return make_error("io", "cannot read " + it->path().string());
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Positions are UTF-16 columns of the line's text: undefined for bytes that are not UTF-8.
    if (!is_valid_utf8(content)) return make_error("io", "not valid UTF-8: " + it->path().string());
    SourceFile file;
    file.path = it->path().lexically_relative(base).generic_string();
    file.bytes = content.size();
    file.lines = split_lines(content);
    ws.files_.push_back(std::move(file));
  }
  if (ws.files_.empty()) return make_error("io", "workspace holds no file: " + root);
  std::sort(ws.files_.begin(), ws.files_.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return ws;
}

const SourceFile* Workspace::find(std::string_view path) const {
  std::size_t i = index_of(path);
  return i < files_.size() ? &files_[i] : nullptr;
}

std::size_t Workspace::index_of(std::string_view path) const {
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].path == path) return i;
  }
  return files_.size();
}

std::vector<LineMatch> Workspace::search(std::string_view query) const {
  std::vector<LineMatch> out;
  if (query.empty()) return out;
  const std::string needle = ascii_lower(query);
  const std::string first = needle.substr(0, std::max<std::size_t>(utf8_char_at(needle, 0).length, 1));
  for (std::size_t f = 0; f < files_.size(); ++f) {
    const auto& lines = files_[f].lines;
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const std::string hay = ascii_lower(lines[l]);
      LineMatch m;
      m.file = f;
      m.line = l + 1;
      std::size_t pos = hay.find(needle);
      std::size_t len = needle.size();
      m.exact = pos != std::string::npos;
      if (!m.exact) {
        pos = hay.find(first);
        len = first.size();
      }
      if (pos == std::string::npos) continue;
      m.byte_offset = pos;
      m.text = lines[l].substr(pos, len);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::size_t utf16_column(std::string_view line, std::size_t byte_offset) {
  return truncation::utf16_length(line.substr(0, std::min(byte_offset, line.size()))) + 1;
}

}  // namespace ctxo::reference

#ifndef REFERENCE_WORKSPACE_DIR
#define REFERENCE_WORKSPACE_DIR "corpus/workspace"
#endif

namespace {

using ctxo::kit::json;
namespace tr = ctxo::truncation;
namespace ref = ctxo::reference;

/// A planted defect and the profiles it exists for (space-separated).
struct DefectSpec {
  std::string_view name;
  std::string_view profiles;
};

constexpr std::array<DefectSpec, 22> kDefects = {{
    {"resume-overlap", "meta"},
    {"warning-part", "ctxo"},   {"meta-type", "ctxo"},        {"unstable-hint", "ctxo"},
    {"miss-as-error", "ctxo"},  {"bad-error-code", "budget"}, {"dead-hint", "ctxo"},
    {"no-hint", "ctxo"},        {"count-off", "ctxo"},        {"cap-chars", "ctxo"},
    {"bytes-utf16", "ctxo"},    {"ignore-env", "ctxo meta"},  {"not-prefix", "ctxo"},
    {"not-maximal", "ctxo"},    {"always-truncate", "ctxo"},  {"used-over", "budget"},
    {"no-clamp", "budget"},     {"estimate-half", "budget"},  {"zero-based", "ctxo budget"},
    {"abs-path", "ctxo budget"}, {"byte-cols", "budget"},  {"line-snippet-cp", "ctxo"},
}};

constexpr std::string_view kUsage =
    "usage: reference-server --profile ctxo|budget|meta|truncation-info [--defect NAME] [--workspace DIR]\n"
    "defects (profiles):\n"
    "  ctxo: warning-part meta-type unstable-hint miss-as-error dead-hint no-hint count-off\n"
    "        cap-chars bytes-utf16 ignore-env not-prefix not-maximal always-truncate zero-based abs-path\n"
    "        line-snippet-cp\n"
    "  budget: bad-error-code used-over no-clamp estimate-half zero-based abs-path byte-cols\n"
    "  meta: ignore-env\n";

// Profile constants (schemas/profiles/*.json).
constexpr std::size_t kCtxoDefaultLimit = 8192;
constexpr std::size_t kMetaDefaultLimit = 1048576;
constexpr std::int64_t kBudgetMin = 100;
constexpr std::int64_t kBudgetMax = 10000;
constexpr std::int64_t kBudgetDefault = 2000;
constexpr std::size_t kContextLines = 10;  // truncation-info: lines of context on each side

json read_only() {
  return json{{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xF]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]);
    int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::optional<std::size_t> parse_count(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  std::size_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  return v;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// Identifiers and queries are short: echoed into a budgeted envelope, an unbounded string alone
// could exceed the smallest budget (100 tokens), which no server can then honour.
json string_property(std::string_view description, std::string_view example = "") {
  json p = {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}, {"description", description}};
  if (!example.empty()) p["examples"] = json::array({example});
  return p;
}

json object_schema(json properties, json required) {
  return json{{"type", "object"},
              {"properties", std::move(properties)},
              {"required", std::move(required)},
              {"additionalProperties", false}};
}

// Language tag of a workspace file, from its extension (budget node ids are "<lang>:<path>").
std::string lang_of(std::string_view path) {
  auto dot = path.rfind('.');
  std::string ext = dot == std::string_view::npos ? "" : std::string(path.substr(dot + 1));
  if (ext == "cpp" || ext == "h") return "cpp";
  if (ext == "c" || ext == "py" || ext == "ts" || ext == "md") return ext;
  return "text";
}

class ReferenceServer {
 public:
  ReferenceServer(std::string profile, std::string defect, ref::Workspace workspace)
      : profile_(std::move(profile)), defect_(std::move(defect)), ws_(std::move(workspace)),
        server_(make_options(profile_)) {}

  int run() {
    if (profile_ == "ctxo") register_ctxo();
    if (profile_ == "budget") register_budget();
    if (profile_ == "meta") register_meta();
    if (profile_ == "truncation-info") register_truncation_info();
    return server_.run();
  }

 private:
  static ctxo::kit::ServerOptions make_options(const std::string& profile) {
    ctxo::kit::ServerOptions o;
    o.name = "ctxo-reference-" + profile;
    o.version = "0.1.0";
    return o;
  }

  bool defect(std::string_view name) const { return defect_ == name; }

  void add(std::string name, std::string description, json schema,
           std::function<json(const json&)> handler) {
    ctxo::kit::ToolSpec t;
    t.name = std::move(name);
    t.description = std::move(description);
    t.input_schema = std::move(schema);
    t.annotations = read_only();
    t.handler = std::move(handler);
    if (auto added = server_.add_tool(std::move(t)); !added) {
      std::fprintf(stderr, "reference-server: %s\n", added.error().message.c_str());
      std::exit(2);
    }
  }

  // ---- anchors ------------------------------------------------------------------------------

  // {file, line, col, endLine, snippet} for `text` at byte `byte_offset` of line `line` (1-based).
  json anchor(std::size_t file, std::size_t line, std::size_t byte_offset, const std::string& text) const {
    const ref::SourceFile& f = ws_.files()[file];
    const std::string& line_text = f.lines[line - 1];
    std::size_t col = ref::utf16_column(line_text, byte_offset);
    if (defect("byte-cols")) col = byte_offset + 1;
    std::string snippet = text;
    if (defect("line-snippet-cp")) {
      // Columns in code points, and the whole line as the snippet: only what the call asked
      // about shows where the column should point.
      col = 1;
      for (std::size_t i = 0; i < byte_offset; ++i)
        if ((static_cast<unsigned char>(line_text[i]) & 0xC0) != 0x80) ++col;
      snippet = line_text;
    }
    std::size_t reported_line = defect("zero-based") ? line - 1 : line;
    std::string path = defect("abs-path") ? ws_.root() + "/" + f.path : f.path;
    return json{{"file", path}, {"line", reported_line}, {"col", col}, {"endLine", reported_line},
                {"snippet", snippet}};
  }

  json match_anchor(const ref::LineMatch& m) const { return anchor(m.file, m.line, m.byte_offset, m.text); }

  // Anchors of every non-empty line of a file, the whole line as the snippet.
  json line_anchors(std::size_t file) const {
    json out = json::array();
    const auto& lines = ws_.files()[file].lines;
    for (std::size_t l = 0; l < lines.size(); ++l) {
      if (!lines[l].empty()) out.push_back(anchor(file, l + 1, 0, lines[l]));
    }
    return out;
  }

  std::string title_of(std::size_t file) const {
    for (const auto& line : ws_.files()[file].lines) {
      if (!line.empty()) return line;
    }
    return "";
  }

  // ---- ctxo (seed 000) ------------------------------------------------------------------------

  std::size_t ctxo_limit() const {
    if (defect("ignore-env")) return kCtxoDefaultLimit;
    return ctxo::kit::env_size("CTXO_RESPONSE_LIMIT", kCtxoDefaultLimit);
  }

  // A hint as this server states it (dead-hint and unstable-hint alter every hint).
  std::string ctxo_hint(std::string hint) const {
    if (defect("dead-hint")) replace_all(hint, "search_code", "search_codez");
    if (defect("unstable-hint")) hint += " (#" + std::to_string(calls_) + ")";
    return hint;
  }

  json ctxo_text(const std::string& text) const {
    if (defect("warning-part")) {
      return json{{"content", json::array({json{{"type", "text"}, {"text", "note: index is stale"}},
                                           json{{"type", "text"}, {"text", text}}})}};
    }
    return ctxo::kit::text_result(text);
  }

  json ctxo_error(const std::string& message) const {
    return ctxo_text(tr::to_js_json(json{{"error", true}, {"message", message}}));
  }

  json ctxo_miss(const std::string& hint) const {
    if (defect("miss-as-error")) return ctxo_error("not found");
    return ctxo_text(tr::to_js_json(json{{"found", false}, {"hint", ctxo_hint(hint)}}));
  }

  // The payload with `field` replaced by `items` and a _meta built from the given counts.
  static json ctxo_build(const json& payload, const std::string& field, json items, std::size_t total,
                         std::size_t total_bytes, bool truncated, const std::string& hint) {
    json env = payload;
    const std::size_t returned = items.size();
    env[field] = std::move(items);
    json meta = {{"totalItems", total}, {"returnedItems", returned}, {"truncated", truncated},
                 {"totalBytes", total_bytes}};
    if (truncated && !hint.empty()) meta["hint"] = hint;
    env["_meta"] = std::move(meta);
    return env;
  }

  static json slice(const json& array, std::size_t from, std::size_t count) {
    json out = json::array();
    for (std::size_t i = from; i < from + count && i < array.size(); ++i) out.push_back(array[i]);
    return out;
  }

  // Largest k in [0, limit_k] whose envelope `build(k)` measures <= limit (0 when none does).
  static std::size_t largest_fit(std::size_t limit_k, std::size_t limit, tr::Measure measure,
                                 const std::function<json(std::size_t)>& build) {
    auto fits = [&](std::size_t k) {
      return tr::text_measure(tr::to_js_json(build(k)), measure) <= limit;
    };
    return tr::largest_prefix_naive(limit_k, fits).value_or(0);
  }

  json ctxo_send(const json& payload, const std::string& hint_text) const {
    const std::size_t limit = ctxo_limit();
    tr::CtxoOptions o;
    o.limit = limit;
    o.hint = ctxo_hint(hint_text);
    if (defect("no-hint")) o.hint.clear();
    if (defect("meta-type")) o.limit = limit > 2 ? limit - 2 : 1;  // room for the quotes
    if (defect("cap-chars")) o.limit = std::numeric_limits<std::size_t>::max() / 4;
    auto env = tr::truncate_ctxo(payload, o);
    if (!env) return ctxo_error("internal error: " + env.error().message);
    json out = env->json;
    const std::string& field = env->field;
    const std::size_t n = env->total_items;
    const std::size_t k = env->returned_items;
    auto prefix = [&](std::size_t count, bool truncated) {
      return ctxo_build(payload, field, slice(payload[field], 0, count), n, env->total_bytes, truncated, o.hint);
    };

    if (defect("cap-chars") && n > 0 &&
        tr::text_measure(env->text, tr::Measure::kUtf16Units) > limit) {
      // Measures the limit in UTF-16 units: non-ASCII text makes the bytes overshoot it.
      std::size_t fit = largest_fit(n - 1, limit, tr::Measure::kUtf16Units,
                                    [&](std::size_t c) { return prefix(c, true); });
      out = prefix(fit, true);
    }
    if (defect("not-prefix") && env->truncated) {
      // Keeps the last items that fit instead of the first.
      auto suffix = [&](std::size_t count) {
        return ctxo_build(payload, field, slice(payload[field], n - count, count), n, env->total_bytes, true,
                          o.hint);
      };
      out = suffix(largest_fit(n - 1, limit, tr::Measure::kUtf8Bytes, suffix));
    }
    if (defect("not-maximal") && env->truncated && k > 0) out = prefix(k * 4 / 5, true);
    if (defect("always-truncate") && !env->truncated && n > 0 && env->text_size * 2 > limit) {
      // Over half the limit it "plays safe": drops at least the last item although all fit.
      out = prefix(largest_fit(n - 1, limit, tr::Measure::kUtf8Bytes, [&](std::size_t c) { return prefix(c, true); }),
                   true);
    }
    if (defect("count-off") && !env->truncated && !field.empty()) {
      out["_meta"]["returnedItems"] = k + 1;
      if (tr::js_json_size(out) > limit) {  // one more digit at the very edge: cut one byte earlier
        o.limit = limit - 1;
        auto tighter = tr::truncate_ctxo(payload, o);
        if (!tighter) return ctxo_error("internal error: " + tighter.error().message);
        out = tighter->json;
        if (!tighter->truncated) out["_meta"]["returnedItems"] = tighter->returned_items + 1;
      }
    }
    if (defect("bytes-utf16")) {
      out["_meta"]["totalBytes"] = tr::js_json_utf16_size(payload);
    }
    if (defect("meta-type")) {
      out["_meta"]["totalItems"] = std::to_string(out["_meta"]["totalItems"].get<std::size_t>());
    }
    return ctxo_text(tr::to_js_json(out));
  }

  // Runs a ctxo handler with the call counter and the argument check in place.
  std::function<json(const json&)> ctxo_tool(std::initializer_list<std::string_view> allowed,
                                             std::function<json(const json&)> body) {
    std::vector<std::string> keys(allowed.begin(), allowed.end());
    return [this, keys, body](const json& args) {
      ++calls_;
      for (const auto& [key, value] : args.items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
          return ctxo_error("unknown argument '" + key + "'");
        }
      }
      return body(args);
    };
  }

  std::optional<std::string> ctxo_string(const json& args, const char* key, json& error) const {
    auto it = args.find(key);
    if (it == args.end() || !it->is_string()) {
      error = ctxo_error(std::string(key) + ": Expected string, received " +
                         (it == args.end() ? "undefined" : it->type_name()));
      return std::nullopt;
    }
    if (it->get_ref<const std::string&>().empty()) {
      error = ctxo_error(std::string(key) + ": String must contain at least 1 character(s)");
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  void register_ctxo() {
    add("search_code", "Searches the workspace: every line containing the query (or its first character).",
        object_schema({{"query", string_property("Text to look for, case-insensitive")}}, {"query"}),
        ctxo_tool({"query"}, [this](const json& args) {
          json error;
          auto query = ctxo_string(args, "query", error);
          if (!query) return error;
          json results = json::array();
          for (const auto& m : ws_.search(*query)) results.push_back(match_anchor(m));
          return ctxo_send(json{{"query", *query}, {"results", std::move(results)}},
                           "Use search_code with a narrower query");
        }));
    add("get_symbol", "Looks up a symbol by id (<path>#<line>, as given by search_code results).",
        object_schema({{"symbolId", string_property("Symbol id, <path>#<line>", "docs/i18n-guide.md#3")}},
                      {"symbolId"}),
        ctxo_tool({"symbolId"}, [this](const json& args) {
          json error;
          auto id = ctxo_string(args, "symbolId", error);
          if (!id) return error;
          auto hash = id->rfind('#');
          const ref::SourceFile* file = hash == std::string::npos ? nullptr : ws_.find(id->substr(0, hash));
          auto line = file == nullptr ? std::nullopt : parse_count(std::string_view(*id).substr(hash + 1));
          if (!line || *line < 1 || *line > file->lines.size() || file->lines[*line - 1].empty()) {
            return ctxo_miss("Symbol not found in the index. Use search_code to find symbol ids");
          }
          json symbol = anchor(ws_.index_of(file->path), *line, 0, file->lines[*line - 1]);
          symbol["id"] = *id;
          symbol["kind"] = "line";
          return ctxo_send(json{{"symbol", std::move(symbol)}}, "Use search_code with a narrower query");
        }));
    add("get_file_context", "Returns every non-empty line of a workspace file as anchors.",
        object_schema({{"file", string_property("Workspace-relative path", "docs/i18n-guide.md")}}, {"file"}),
        ctxo_tool({"file"}, [this](const json& args) {
          json error;
          auto path = ctxo_string(args, "file", error);
          if (!path) return error;
          std::size_t index = ws_.index_of(*path);
          if (index == ws_.files().size()) {
            return ctxo_miss("File not found in the index. Use list_files or search_code to find indexed files");
          }
          return ctxo_send(json{{"file", *path}, {"context", line_anchors(index)}},
                           "Use search_code with a query to find the lines you need");
        }));
    add("list_files", "Lists the workspace files with their first line.", object_schema(json::object(), json::array()),
        ctxo_tool({}, [this](const json&) {
          json files = json::array();
          for (std::size_t i = 0; i < ws_.files().size(); ++i) {
            const auto& f = ws_.files()[i];
            files.push_back(json{{"file", defect("abs-path") ? ws_.root() + "/" + f.path : f.path},
                                 {"lines", f.lines.size()},
                                 {"bytes", f.bytes},
                                 {"title", title_of(i)}});
          }
          return ctxo_send(json{{"files", std::move(files)}}, "Use search_code to find files by their content");
        }));
  }

  // ---- budget (seed 001) ----------------------------------------------------------------------

  enum class UsedMode { kQuarter, kHalf };

  // Sets tokenBudget.used to its fixed point: ceil(utf16(text) / 4) (or / 2 for estimate-half,
  // capped at requested).
  static void settle_used(json& env, UsedMode mode) {
    const auto requested = env["tokenBudget"]["requested"].get<std::int64_t>();
    for (int i = 0; i < 16; ++i) {
      const std::size_t units = tr::js_json_utf16_size(env);
      std::int64_t used = 0;
      if (mode == UsedMode::kQuarter) {
        used = static_cast<std::int64_t>((units + 3) / 4);
      } else {
        used = std::min(static_cast<std::int64_t>((units + 1) / 2), std::max<std::int64_t>(requested, 0));
      }
      if (env["tokenBudget"]["used"] == used) return;
      env["tokenBudget"]["used"] = used;
    }
  }

  UsedMode used_mode() const { return defect("estimate-half") ? UsedMode::kHalf : UsedMode::kQuarter; }

  static std::int64_t clamp_budget(std::optional<std::int64_t> arg) {
    return std::clamp(arg.value_or(kBudgetDefault), kBudgetMin, kBudgetMax);
  }

  // The tokenBudget argument: nullopt when absent; Error "args" when not an integer.
  static ctxo::Result<std::optional<std::int64_t>> budget_arg(const json& args) {
    if (!args.contains("tokenBudget")) return std::optional<std::int64_t>();
    auto v = ctxo::kit::integer_arg(args, "tokenBudget", std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max());
    if (!v) return v.error();
    return std::optional<std::int64_t>(*v);
  }

  json budget_error(const std::string& code, const std::string& message, const std::string& hint,
                    std::optional<std::int64_t> arg) const {
    json error = {{"code", code}, {"message", message}};
    if (!hint.empty()) error["hint"] = hint;
    json env = {{"ok", false},
                {"error", std::move(error)},
                {"tokenBudget", {{"requested", clamp_budget(arg)}, {"used", 0}, {"max", kBudgetMax}}},
                {"truncated", false},
                {"warnings", json::array()}};
    if (defect("no-clamp") && arg && *arg != clamp_budget(arg)) {
      env["tokenBudget"]["requested"] = std::max<std::int64_t>(*arg, 0);  // (a count: never negative)
    }
    settle_used(env, used_mode());
    return ctxo::kit::text_result(tr::to_js_json(env));
  }

  json budget_send(const json& data, const std::string& note, std::optional<std::int64_t> arg) const {
    const std::int64_t requested = clamp_budget(arg);
    tr::BudgetOptions o;
    o.token_budget = arg;
    o.note_template = note;
    std::int64_t reported = requested;  // what tokenBudget.requested says
    bool rewrite = false;
    if (defect("used-over")) {
      // Enforces the budget with 50 tokens of slack: used can exceed requested.
      o.token_budget = requested + 50;
      o.max_budget = std::max(kBudgetMax, requested + 50);
      rewrite = true;
    }
    if (defect("estimate-half")) {
      // Counts a token per 2 characters, so it cuts to half the budget by the real estimate.
      o.token_budget = std::max<std::int64_t>(1, requested / 2);
      o.min_budget = 1;
      rewrite = true;
    }
    if (defect("no-clamp") && arg && *arg != requested) {
      // Reports the argument as requested. It honours it when it can (above the maximum, or a
      // low budget that still fits); below that, used > requested is unavoidable (B-USED too).
      reported = std::max<std::int64_t>(*arg, 0);  // (a count: never negative)
      if (*arg > kBudgetMax) o.max_budget = *arg;
      rewrite = true;
    }
    auto env = tr::truncate_budget(data, o);
    if (defect("no-clamp") && arg && *arg >= 1 && *arg < kBudgetMin) {
      tr::BudgetOptions low = o;
      low.min_budget = *arg;
      auto lower = tr::truncate_budget(data, low);
      if (lower && lower->fits && static_cast<std::int64_t>(lower->used) <= *arg) env = std::move(lower);
    }
    if (!env) return budget_error("INTERNAL", "internal error: " + env.error().message, "", arg);
    json out = env->json;
    if (rewrite) {
      out["tokenBudget"]["requested"] = reported;
      out["tokenBudget"]["max"] = kBudgetMax;
      settle_used(out, used_mode());
    }
    return ctxo::kit::text_result(tr::to_js_json(out));
  }

  // Wraps a budget handler: unknown arguments and a non-integer tokenBudget are BAD_ARGS.
  std::function<json(const json&)> budget_tool(
      std::initializer_list<std::string_view> allowed,
      std::function<json(const json&, std::optional<std::int64_t>)> body) {
    std::vector<std::string> keys(allowed.begin(), allowed.end());
    keys.emplace_back("tokenBudget");
    return [this, keys, body](const json& args) {
      auto budget = budget_arg(args);
      if (!budget) return budget_error("BAD_ARGS", budget.error().message, "", std::nullopt);
      const std::optional<std::int64_t> arg = *budget;
      for (const auto& [key, value] : args.items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
          return budget_error("BAD_ARGS", "unknown argument '" + key + "'", "", arg);
        }
      }
      return body(args, arg);
    };
  }

  std::optional<std::string> budget_string(const json& args, const char* key, std::optional<std::int64_t> arg,
                                           json& error) const {
    auto it = args.find(key);
    if (it == args.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
      error = budget_error("BAD_ARGS", std::string(key) + " must be a non-empty string", "", arg);
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  static json with_budget(json properties) {
    properties["tokenBudget"] = {{"type", "integer"},
                                 {"default", kBudgetDefault},
                                 {"description", "Response budget in tokens (default 2000, clamped to [100, 10000])"}};
    return properties;
  }

  void register_budget() {
    add("map_search", "Searches the workspace map: every line containing the query (or its first character).",
        object_schema(with_budget({{"query", string_property("Text to look for, case-insensitive")}}),
                      {"query"}),
        budget_tool({"query"}, [this](const json& args, std::optional<std::int64_t> budget) {
          json error;
          auto query = budget_string(args, "query", budget, error);
          if (!query) return error;
          json matches = json::array();
          for (const auto& m : ws_.search(*query)) matches.push_back(match_anchor(m));
          return budget_send(json{{"query", *query}, {"matches", std::move(matches)}},
                             "Dropped {count} {kind} to fit tokenBudget={requested}. "
                             "Use a longer query or raise tokenBudget.",
                             budget);
        }));
    add("map_node", "Returns a file node (<lang>:<path>) and the anchors of its lines.",
        object_schema(with_budget({{"nodeId", string_property("Node id, <lang>:<path>", "md:docs/i18n-guide.md")}}),
                      {"nodeId"}),
        budget_tool({"nodeId"}, [this](const json& args, std::optional<std::int64_t> budget) {
          json error;
          auto id = budget_string(args, "nodeId", budget, error);
          if (!id) return error;
          for (std::size_t i = 0; i < ws_.files().size(); ++i) {
            const auto& f = ws_.files()[i];
            if (*id != lang_of(f.path) + ":" + f.path) continue;
            json node = {{"id", *id}, {"file", f.path}, {"lang", lang_of(f.path)}, {"lineCount", f.lines.size()}};
            if (defect("abs-path")) node["file"] = ws_.root() + "/" + f.path;
            return budget_send(json{{"node", std::move(node)}, {"references", line_anchors(i)}},
                               "Dropped {count} {kind} to fit tokenBudget={requested}. Raise tokenBudget to see them.",
                               budget);
          }
          return budget_error("NODE_NOT_FOUND", "No node with id '" + *id + "' in the map",
                              "Node ids come from map_search or map_files", budget);
        }));
    add("map_files", "Lists the files of the workspace map with their node ids.",
        object_schema(with_budget(json::object()), json::array()),
        budget_tool({}, [this](const json&, std::optional<std::int64_t> budget) {
          json files = json::array();
          for (std::size_t i = 0; i < ws_.files().size(); ++i) {
            const auto& f = ws_.files()[i];
            files.push_back(json{{"id", lang_of(f.path) + ":" + f.path},
                                 {"file", defect("abs-path") ? ws_.root() + "/" + f.path : f.path},
                                 {"lines", f.lines.size()},
                                 {"title", title_of(i)}});
          }
          return budget_send(json{{"files", std::move(files)}},
                             "Dropped {count} {kind} to fit tokenBudget={requested}. Raise tokenBudget to see them.",
                             budget);
        }));
    add("nav_diagnostics", "Live diagnostics from the language server (none is installed here).",
        object_schema(with_budget(json::object()), json::array()),
        budget_tool({}, [this](const json&, std::optional<std::int64_t> budget) {
          const std::string code = defect("bad-error-code") ? "NOT_FOUND_X" : "LSP_UNAVAILABLE";
          return budget_error(code, "clangd not found on PATH",
                              "Install clangd; static structure is still available via map_search and map_node",
                              budget);
        }));
  }

  // ---- meta (seed 003) ------------------------------------------------------------------------

  std::size_t meta_limit() const {
    if (defect("ignore-env")) return kMetaDefaultLimit;
    return ctxo::kit::env_size("TOOL_MAX_OUTPUT_BYTES", kMetaDefaultLimit);
  }

  static json meta_error(const std::string& message) {
    return ctxo::kit::text_result(tr::to_js_json(json{{"ok", false},
                                                      {"data", nullptr},
                                                      {"error", {{"code", "BAD_ARGS"}, {"message", message}}},
                                                      {"warnings", json::array()}}));
  }

  json meta_send(json data, const std::string& hint_template, json warnings) const {
    tr::MetaOptions o;
    o.limit = meta_limit();
    o.hint_template = hint_template;
    auto env = tr::truncate_meta(json{{"data", std::move(data)}, {"warnings", std::move(warnings)}}, o);
    if (!env) return meta_error("internal error: " + env.error().message);
    return ctxo::kit::text_result(env->text);
  }

  json record(std::size_t index) const {
    const auto& [file, line] = records_[index];
    char id[32];
    std::snprintf(id, sizeof id, "item-%03zu", index + 1);
    json r = anchor(file, line, 0, ws_.files()[file].lines[line - 1]);
    r["id"] = id;
    return r;
  }

  // Cursor "c<hex(query)>g<offset>g<count>": the next page starts at offset + count.
  static std::optional<std::size_t> parse_cursor(const std::string& cursor, const std::string& query) {
    if (cursor.size() < 4 || cursor[0] != 'c') return std::nullopt;
    auto g1 = cursor.find('g');
    auto g2 = g1 == std::string::npos ? std::string::npos : cursor.find('g', g1 + 1);
    if (g2 == std::string::npos) return std::nullopt;
    auto q = from_hex(std::string_view(cursor).substr(1, g1 - 1));
    auto offset = parse_count(std::string_view(cursor).substr(g1 + 1, g2 - g1 - 1));
    auto count = parse_count(std::string_view(cursor).substr(g2 + 1));
    if (!q || *q != query || !offset || !count) return std::nullopt;
    return *offset + *count;
  }

  // Items from `offset` on, with a hint whose cursor fetches what follows the returned ones.
  json meta_page(const json& items, const std::string& tool, const std::string& query, const json& args) const {
    std::size_t offset = 0;
    if (auto it = args.find("cursor"); it != args.end()) {
      auto parsed = it->is_string() ? parse_cursor(it->get<std::string>(), query) : std::nullopt;
      if (!parsed) return meta_error("cursor: not a cursor this tool handed out for this query");
      offset = *parsed;
      if (defect("resume-overlap") && offset > 0) offset -= 1;  // the next page repeats the last item
    }
    json page = json::array();
    for (std::size_t i = offset; i < items.size(); ++i) page.push_back(items[i]);
    std::string command = tool;
    if (!query.empty()) command += " --query " + ctxo::shell_quote(query);
    command += " --cursor c" + to_hex(query) + "g" + std::to_string(offset) + "g{returned}";
    return meta_send(std::move(page), "Showing {returned} of {total} items; run " + command + " for the rest",
                     json::array());
  }

  bool meta_args(const json& args, std::initializer_list<std::string_view> allowed, json& error) const {
    if (auto known = ctxo::kit::only_known_args(args, allowed); !known) {
      error = meta_error(known.error().message);
      return false;
    }
    if (auto it = args.find("cursor"); it != args.end() && !it->is_string()) {
      error = meta_error("cursor must be a string");
      return false;
    }
    return true;
  }

  void register_meta() {
    for (std::size_t f = 0; f < ws_.files().size(); ++f) {
      for (std::size_t l = 0; l < ws_.files()[f].lines.size(); ++l) {
        if (!ws_.files()[f].lines[l].empty()) records_.emplace_back(f, l + 1);
      }
    }
    json cursor = {{"type", "string"}, {"description", "Cursor from a previous truncation_hint"}};
    add("records_list", "Lists every record (one per non-empty workspace line).",
        object_schema({{"cursor", cursor}}, json::array()), [this](const json& args) {
          json error;
          if (!meta_args(args, {"cursor"}, error)) return error;
          json items = json::array();
          for (std::size_t i = 0; i < records_.size(); ++i) items.push_back(record(i));
          return meta_page(items, "records_list", "", args);
        });
    add("records_search", "Searches the records: lines containing the query (or its first character).",
        object_schema({{"query", string_property("Text to look for, case-insensitive")}, {"cursor", cursor}},
                      {"query"}),
        [this](const json& args) {
          json error;
          if (!meta_args(args, {"query", "cursor"}, error)) return error;
          auto query = ctxo::kit::string_arg(args, "query");
          if (!query || query->empty()) return meta_error("query must be a non-empty string");
          json items = json::array();
          for (const auto& m : ws_.search(*query)) items.push_back(match_anchor(m));
          return meta_page(items, "records_search", *query, args);
        });
    add("records_get", "Returns the record with this id (item-001, item-002, ...).",
        object_schema({{"id", string_property("Record id", "item-001")}}, {"id"}), [this](const json& args) {
          json error;
          if (!meta_args(args, {"id"}, error)) return error;
          auto id = ctxo::kit::string_arg(args, "id");
          if (!id || id->empty()) return meta_error("id must be a non-empty string");
          auto n = id->rfind("item-", 0) == 0 ? parse_count(std::string_view(*id).substr(5)) : std::nullopt;
          if (!n || *n < 1 || *n > records_.size()) {
            return meta_send(json::array(), "", json::array({"No record with id " + *id}));
          }
          return meta_send(json::array({record(*n - 1)}),
                           "Showing {returned} of {total} items; run records_list --cursor cg" +
                               std::to_string(*n - 1) + "g{returned} for the rest",
                           json::array());
        });
  }

  // ---- truncation-info (seed 004) -------------------------------------------------------------

  static json ti_error(const std::string& message) {
    return ctxo::kit::text_result(tr::to_js_json(json{{"error", message}}));
  }

  json ti_send(json payload) const {
    tr::TruncationInfoOptions o;
    o.measure = tr::Measure::kCodePoints;  // the profile counts characters as code points
    auto env = tr::truncate_truncation_info(payload, o);
    if (!env) return ti_error("internal error: " + env.error().message);
    return ctxo::kit::text_result(env->text);
  }

  std::optional<std::string> ti_string(const json& args, const char* key, json& error) const {
    auto it = args.find(key);
    if (it == args.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
      error = ti_error(std::string(key) + " must be a non-empty string");
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  void register_truncation_info() {
    add("search_code", "Semantic-style code search: lines containing the query (or its first character), "
        "with surrounding context, best matches first.",
        object_schema({{"query", string_property("Text to look for, case-insensitive")}}, {"query"}),
        [this](const json& args) {
          json error;
          if (auto known = ctxo::kit::only_known_args(args, {"query"}); !known) return ti_error(known.error().message);
          auto query = ti_string(args, "query", error);
          if (!query) return error;
          auto matches = ws_.search(*query);
          std::stable_sort(matches.begin(), matches.end(),
                           [](const ref::LineMatch& a, const ref::LineMatch& b) { return a.exact && !b.exact; });
          json results = json::array();
          for (const auto& m : matches) {
            json r = match_anchor(m);
            const auto& lines = ws_.files()[m.file].lines;
            const std::size_t first = m.line - 1 >= kContextLines ? m.line - 1 - kContextLines : 0;
            const std::size_t last = std::min(lines.size(), m.line + kContextLines);
            json before = json::array();
            json after = json::array();
            for (std::size_t i = first; i < m.line - 1; ++i) before.push_back(lines[i]);
            for (std::size_t i = m.line; i < last; ++i) after.push_back(lines[i]);
            r["content"] = lines[m.line - 1];
            r["context_before"] = std::move(before);
            r["context_after"] = std::move(after);
            r["similarity_score"] = m.exact ? 1.0 : 0.5;
            results.push_back(std::move(r));
          }
          return ti_send(json{{"query", *query}, {"results", std::move(results)}});
        });
    add("get_file", "Returns the non-empty lines of a workspace file (no match: empty results).",
        object_schema({{"file", string_property("Workspace-relative path", "docs/i18n-guide.md")}}, {"file"}),
        [this](const json& args) {
          json error;
          if (auto known = ctxo::kit::only_known_args(args, {"file"}); !known) return ti_error(known.error().message);
          auto path = ti_string(args, "file", error);
          if (!path) return error;
          std::size_t index = ws_.index_of(*path);
          json results = index < ws_.files().size() ? line_anchors(index) : json::array();
          return ti_send(json{{"file", *path}, {"results", std::move(results)}});
        });
    add("list_files", "Lists the workspace files with their first line.", object_schema(json::object(), json::array()),
        [this](const json& args) {
          if (auto known = ctxo::kit::only_known_args(args, {}); !known) return ti_error(known.error().message);
          json results = json::array();
          for (std::size_t i = 0; i < ws_.files().size(); ++i) {
            const auto& f = ws_.files()[i];
            results.push_back(json{{"file", f.path}, {"lines", f.lines.size()}, {"title", title_of(i)}});
          }
          return ti_send(json{{"results", std::move(results)}});
        });
  }

  std::string profile_;
  std::string defect_;
  ref::Workspace ws_;
  ctxo::kit::Server server_;
  mutable std::size_t calls_ = 0;                                 ///< tools/call count (unstable-hint).
  std::vector<std::pair<std::size_t, std::size_t>> records_;      ///< meta: (file, 1-based line).
};

bool defect_applies(std::string_view name, std::string_view profile) {
  for (const auto& d : kDefects) {
    if (d.name != name) continue;
    std::string_view list = d.profiles;
    while (!list.empty()) {
      auto space = list.find(' ');
      if (list.substr(0, space) == profile) return true;
      list = space == std::string_view::npos ? std::string_view() : list.substr(space + 1);
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::string profile;
  std::string defect;
  std::string workspace = REFERENCE_WORKSPACE_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if ((a == "--profile" || a == "--defect" || a == "--workspace") && i + 1 < argc) {
      std::string value = argv[++i];
      if (a == "--profile") profile = value;
      if (a == "--defect") defect = value;
      if (a == "--workspace") workspace = value;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage.data(), stdout);
      return 0;
    } else {
      std::fprintf(stderr, "reference-server: unexpected argument '%s'\n%s", argv[i], kUsage.data());
      return 2;
    }
  }
  if (profile != "ctxo" && profile != "budget" && profile != "meta" && profile != "truncation-info") {
    std::fprintf(stderr, "reference-server: --profile must be ctxo, budget, meta or truncation-info\n%s",
                 kUsage.data());
    return 2;
  }
  if (!defect.empty() && !defect_applies(defect, profile)) {
    std::fprintf(stderr, "reference-server: no defect '%s' for profile %s\n%s", defect.c_str(), profile.c_str(),
                 kUsage.data());
    return 2;
  }
  auto ws = ref::Workspace::load(workspace);
  if (!ws) {
    std::fprintf(stderr, "reference-server: %s\n", ws.error().message.c_str());
    return 2;
  }
  ReferenceServer server(profile, defect, std::move(*ws));
  return server.run();
}
