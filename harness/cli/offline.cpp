// SPDX-License-Identifier: MIT
// The offline commands: `check` (the checks over a recorded transcript, no server) and `merge`
// (the reports of a sharded run, as one).
#include <filesystem>

#include "cli/common.h"
#include "engine/transcript.h"
#include "profile/profile.h"

namespace ctxo::cli {

namespace {

// Why two of the reports given to `merge` cannot both be shards of one run, or "" when none:
// the same report twice (one file named twice, or a copy), or two reports that both tested a
// tool (the shards of a run test disjoint tools: an earlier merge, or one shard run twice).
// Merging either would count the calls, findings and coverage of those tools twice.
std::string overlapping_reports(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& docs,
                                const std::vector<engine::RunReport>& shards) {
  for (std::size_t j = 1; j < shards.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      std::error_code ec;
      const std::string pair = "'" + paths[i] + "' and '" + paths[j] + "'";
      if (docs[i] == docs[j] || std::filesystem::equivalent(paths[i], paths[j], ec))
        return pair + " are the same report: merging it twice would count its calls and findings twice; give each "
                      "shard's report once";
      for (const auto& a : shards[i].tools) {
        if (!a.selected) continue;
        for (const auto& b : shards[j].tools)
          if (b.selected && b.name == a.name)
            return pair + " both tested tool '" + a.name + "': the shards of one run (--shard K/N) test disjoint " +
                   "tools, so merging them would count its calls and findings twice (is one an earlier merge, or " +
                   "the same shard run twice?)";
      }
    }
  }
  return "";
}

}  // namespace

// `ctxo-conform check TRANSCRIPT.jsonl`: the checks over recorded exchanges, no server.
int run_check(int argc, char** argv) {
  CLI::App app{"ctxo-conform check: validate recorded MCP exchanges offline, without a server.\n\n"
               "  ctxo-conform check [OPTIONS] TRANSCRIPT.jsonl\n\n"
               "One JSON object per line: {\"request\": <JSON-RPC request>, \"response\": <JSON-RPC response>,\n"
               "\"env\": {K: V} (optional: the server's environment overrides in effect)}. Identical calls\n"
               "are compared (E-STABLE); identical calls under different limit variables form a limit sweep.",
               "ctxo-conform check"};
  std::string transcript, tools_list, profile = "auto", root, baseline, host;
  bool strict_error_output = false;
  Outputs outputs;
  std::vector<std::string> only, skip;
  Console console;
  app.add_option("TRANSCRIPT", transcript, "The transcript (.jsonl, '-' = stdin)")->required();
  app.add_option("--tools-list", tools_list, "A file with the tools/list result the calls were made against")
      ->type_name("F");
  add_profile_option(app, profile);
  app.add_option("--root", root, "Workspace the positions refer to (enables POS-UTF16)")->type_name("DIR");
  add_host_option(app, host);
  add_strict_error_output_option(app, strict_error_output);
  outputs.add_options(app);
  add_baseline_option(app, baseline);
  add_selection_options(app, only, skip);
  add_console_options(app, console, "Print only the summary line", "Print each finding's replay reference");
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  ctxo::engine::CheckOptions o;
  o.transcript = transcript;
  if (!tools_list.empty()) o.tools_list = tools_list;
  o.profile = profile;
  o.host = host;
  o.strict_error_output = strict_error_output;
  if (!root.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) return usage_error("--root '" + root + "' is not a directory");
    o.root = std::filesystem::absolute(root).string();
  }
  auto only_ids = split_csv(only), skip_ids = split_csv(skip);
  if (auto p = selection_problem(only_ids, skip_ids); !p.empty()) return usage_error(p);
  o.selection = ctxo::checks::Selection(only_ids, skip_ids);
  auto accepted = check_report_options(console.color, outputs, baseline);
  if (!accepted.ok()) return usage_error(accepted.error().message);
  auto report = ctxo::engine::check_transcript(o);
  if (!report.ok()) return usage_error(report.error().message);
  if (!baseline.empty()) ctxo::engine::apply_baseline(*report, *accepted);
  return finish(*report, outputs, console.color, console.verbosity);
}

// `ctxo-conform merge A.json B.json ...`: the shard reports of one run, as one.
int run_merge(int argc, char** argv) {
  CLI::App app{"ctxo-conform merge: combine the JSON reports of a sharded run (--shard K/N) into one.\n\n"
               "  ctxo-conform merge [OPTIONS] REPORT.json...\n\n"
               "The shards must share the seed and the server command, and each test its own tools: a report\n"
               "given twice, or two that tested the same tool, are refused (exit 2) rather than counted twice.\n"
               "Findings seen by several shards (server-level ones) are kept once; the exit code is that of\n"
               "the merged verdict.",
               "ctxo-conform merge"};
  std::vector<std::string> inputs;
  std::string baseline;
  Console console;
  Outputs outputs;
  app.add_option("REPORT", inputs, "JSON reports written with --json by each shard")->required();
  outputs.add_options(app);
  add_baseline_option(app, baseline);
  add_console_options(app, console, "Print only the summary line", "Print each finding's replay command");
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  auto accepted = check_report_options(console.color, outputs, baseline);
  if (!accepted.ok()) return usage_error(accepted.error().message);
  std::vector<ctxo::engine::RunReport> shards;
  std::vector<nlohmann::json> docs;
  for (const auto& path : inputs) {
    auto doc = ctxo::profile::read_json_file(path);
    if (!doc) return usage_error(doc.error().message);
    auto r = ctxo::reports::from_json(*doc);
    if (!r.ok()) return usage_error("'" + path + "': " + r.error().message);
    shards.push_back(std::move(r.value()));
    docs.push_back(std::move(*doc));
  }
  if (auto twice = overlapping_reports(inputs, docs, shards); !twice.empty()) return usage_error(twice);
  auto merged = ctxo::engine::merge_reports(shards);
  if (!merged.ok()) return usage_error(merged.error().message);
  if (!baseline.empty()) ctxo::engine::apply_baseline(*merged, *accepted);
  return finish(*merged, outputs, console.color, console.verbosity);
}

}  // namespace ctxo::cli
