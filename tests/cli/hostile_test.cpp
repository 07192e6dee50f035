// SPDX-License-Identifier: MIT
// Hostile tool schemas (issue 14): nested tens of thousands of levels, sizes of 1e9, 1e300 or
// 2^64-1, enums of 100,000 values, patterns that make std::regex recurse or backtrack without end,
// numbers past 2^53, multipleOf 0. Whatever the schema, the run ends with a documented exit code,
// a schema-valid JSON report, within a bounded time and memory, and says what it could not honour.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "../support/run_harness.h"
#include "../support/signals.h"

extern char** environ;

namespace ctxo::test {
namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string nest(int n, const std::string& open, const std::string& close, const std::string& inner = R"({"type":"string"})") {
  return repeat(open, n) + inner + repeat(close, n);
}

// An object schema whose one required property `x` is `sub`.
std::string required_x(const std::string& sub) {
  return R"({"type":"object","properties":{"x":)" + sub + R"(},"required":["x"]})";
}

struct HostileSchema {
  std::string name;
  std::string schema;
  int exit_code;           ///< What the run must end with.
  std::string said;        ///< A text the console must show (why it did what it did); "" = none required.
};

std::vector<HostileSchema> hostile_schemas() {
  std::string enum100k = "[";
  for (int i = 0; i < 100000; ++i) enum100k += (i ? ",\"v" : "\"v") + std::to_string(i) + "\"";
  enum100k += "]";
  return {
      // Deeper than any client walks: the message itself is the finding (T-FRAMING).
      {"anyOf nested 5,000 levels", required_x(nest(5000, R"({"anyOf":[)", "]}")), 1, "deeper than 256 levels"},
      {"properties nested 100,000 levels", nest(100000, R"({"type":"object","required":["a"],"properties":{"a":)", "}}"), 1,
       "deeper than 256 levels"},
      {"not nested 5,000 levels", required_x(nest(5000, R"({"not":)", "}")), 1, "deeper than 256 levels"},
      // Sizes the generator cannot honour: the tool is not called, and the run says why.
      {"minLength 1e6", required_x(R"({"type":"string","minLength":1000000})"), 4, "minLength 1000000 is more than"},
      {"minLength 1e9", required_x(R"({"type":"string","minLength":1000000000})"), 4, "minLength 1000000000 is more than"},
      {"minItems 1e9", required_x(R"({"type":"array","minItems":1000000000})"), 4, "minItems 1000000000 is more than"},
      {"integers past 2^53", required_x(R"({"type":"integer","minimum":1e300,"maximum":1.7e308})"), 4,
       "an integer range past 2^53"},
      {"three unique booleans", required_x(R"({"type":"array","items":{"type":"boolean"},"minItems":3,"uniqueItems":true})"), 4,
       "no schema-valid arguments could be generated"},
      // Sizes no validator accepts either (valijson refuses them): called unvalidated, and said so.
      {"minLength 1e300", required_x(R"({"type":"string","minLength":1e300})"), 0, "minLength 1e+300 is more than"},
      {"minItems 2^64-1", required_x(R"({"type":"array","minItems":18446744073709551615})"), 0, "cannot validate the inputSchema"},
      // Patterns std::regex cannot run safely.
      {"a pattern repeated a million times", required_x(R"({"type":"string","pattern":"^(a{1000}){1000}$"})"), 0,
       "pattern repeats more than 100000 times"},
      {"a pattern over 100,000 characters", required_x(R"({"type":"string","pattern":"^(a|b)*$","minLength":100000})"), 4,
       "minLength 100000 is more than"},
      {"a pattern std::regex rejects", required_x(R"({"type":"string","pattern":"(("})"), 0, "cannot validate the inputSchema"},
      // Arithmetic and size.
      {"multipleOf 0", required_x(R"({"type":"number","multipleOf":0})"), 0, "multipleOf must be a number greater than 0"},
      {"multipleOf 1e-300", required_x(R"({"type":"number","multipleOf":1e-300,"minimum":-1e300,"maximum":1e300})"), 0, ""},
      {"an enum of 100,000 values", required_x(R"({"enum":)" + enum100k + "}"), 0, "an enum of 100000 values"},
      {"allOf of 5,000 schemas", required_x(R"({"allOf":[)" + [] {
         std::string s;
         for (int i = 0; i < 5000; ++i) s += (i ? "," : "") + std::string(R"({"type":"string"})");
         return s;
       }() + "]}"), 0, ""},
      {"a $ref to itself", required_x(R"({"$ref":"#/properties/x"})"), 0, ""},
  };
}

TEST(Hostile, NoToolSchemaCrashesHangsOrExhaustsTheHarness) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hostile-schemas";
  std::filesystem::create_directories(dir);
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/schema_server.py";
  int index = 0;
  for (const auto& h : hostile_schemas()) {
    SCOPED_TRACE(h.name);
    const std::string file = dir + "/" + std::to_string(index++) + ".json";
    std::ofstream(file) << h.schema;
    const auto start = std::chrono::steady_clock::now();
    auto r = run_harness({"--calls", "20", "--no-cases", "--env", "SCHEMA_FILE=" + file, "--", "python3", server});
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, h.exit_code) << r.out << r.err;
    ASSERT_TRUE(r.report.is_object()) << r.err;
    // Generous: each of these takes well under a second when it works; a regression takes minutes.
    EXPECT_LT(seconds, 60.0) << "the run took " << seconds << " s";
    if (!h.said.empty()) {
      EXPECT_NE(r.out.find(h.said), std::string::npos) << r.out;
    }
  }
  // The largest resident set of any process this test waited for (the harness runs and their
  // servers): a schema that asks for 1e9 items must not cost gigabytes.
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 1024L * 1024L) << "peak resident set " << usage.ru_maxrss << " KiB";
}

// Memory is bounded by --max-message-bytes: a run reading 32 MB answers holds a few copies of
// one (the line, the parsed value, the answer kept for the judge), not one per call or per check.
// README states the bound (about 6 times the largest answer read, plus ~20 MB).
TEST(Hostile, HugeAnswersCostAFewTimesTheirSizeNotMore) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hostile-schemas";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/plain.json";
  std::ofstream(file) << R"({"type":"object","properties":{"q":{"type":"string"}}})";
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/schema_server.py";
  constexpr long kAnswer = 32L << 20;
  // --host none: a 32 MB answer is an H-SIZE error (past Claude Desktop's 1 MB), not this test's subject.
  auto r = run_harness({"--calls", "6", "--no-cases", "--host", "none", "--max-message-bytes", std::to_string(kAnswer + 4096), "--env",
                        "SCHEMA_FILE=" + file, "--env", "ANSWER_BYTES=" + std::to_string(kAnswer), "--", "python3", server});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 3);
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  // Generous (8 copies): six calls kept whole would be over 12.
  EXPECT_LT(usage.ru_maxrss, 8 * kAnswer / 1024 + 64 * 1024) << "peak resident set " << usage.ru_maxrss << " KiB";
}

// A listing is held once, parsed, and a tool's schema is neither copied nor compiled again for
// its calls: one tool with an enum of 100,000 objects (a 3.4 MB listing) peaked at 307 MB when
// the listing was copied for the judge and the schema three times more for the plan and its
// validators, and at 110 MB while the listing was still copied out of its page, every answer
// copied once on its way out of the client, and valijson held two copies of the enum's values
// (54 MB since: a large enum is checked against its values' canonical texts). Python holding the
// listing parsed takes 47 MB. The server is one of the children measured.
TEST(Hostile, ALargeListingIsHeldOnce) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/many_tools_server.py";
  auto r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--", "python3", server, "100000", "enum"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["tools"].size(), 1u);
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 1);
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 80 * 1024) << "peak resident set " << usage.ru_maxrss << " KiB";
}

// One answer's checks have a CPU bound (issue 27): a 60 MB answer of 20 million `{}` kept a core
// busy for minutes (every check parsed it again). Over 1 MiB an answer is checked on a sample (the
// first items of each array), once per tool the run says so, and the run ends with a report.
// bench/huge-answer.sh prints the figures.
TEST(Hostile, AHugeAnswerIsCheckedOnASample) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/huge_answer_server.py";
  const auto start = std::chrono::steady_clock::now();
  auto r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--host", "none", "--", "python3", server, "empties", "20000000"});
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  // Exit 4: a list of empty objects is an empty answer, so no call reached data (as before).
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 1);
  EXPECT_EQ(r.report["findings"].size(), 0u) << r.report["findings"].dump();
  int notes = 0;
  for (const auto& n : r.report["notes"]) notes += n.get<std::string>().find("tool 'list': answers over 1 MiB were checked on a sample") != std::string::npos;
  EXPECT_EQ(notes, 1) << r.report["notes"].dump();
  // Generous: it takes seconds (reading 60 MB twice); before the bound it took minutes.
  EXPECT_LT(seconds, 90.0) << "the run took " << seconds << " s";
}

// The sample is the answer's first items: a defect there (a "[object Object]" leaked into the
// first of 200,000 harvestable items) is found on the huge answer, and the answer's `count`, which
// the sample's 1,000 items cannot match, accuses nothing. The ids harvested from the sample feed
// the tool that takes one.
TEST(Hostile, ADefectInTheFirstItemsOfAHugeAnswerIsFound) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/huge_answer_server.py";
  auto r = run_harness({"--seed", "1", "--calls", "3", "--no-cases", "--host", "none", "--env", "LEAK=1", "--env", "STRUCTURED=1",
                        "--", "python3", server, "ids", "200000"});
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  std::set<std::string> ids;
  for (const auto& f : r.report["findings"]) ids.insert(f["invariant"].get<std::string>());
  EXPECT_EQ(ids, std::set<std::string>{"P-LEAK"}) << r.report["findings"].dump();
  bool noted = false;
  for (const auto& n : r.report["notes"]) noted |= n.get<std::string>().find("tool 'list': answers over 1 MiB") != std::string::npos;
  EXPECT_TRUE(noted) << r.report["notes"].dump();
  bool reached = false;
  for (const auto& t : r.report["tools"])
    if (t["name"] == "get") reached = t["coverage"]["data"].get<int>() > 0;
  EXPECT_TRUE(reached) << r.report["tools"].dump();
}

// Every string of `v` that is a URL, with its host (lower case, port and user dropped).
void url_hosts(const nlohmann::json& v, std::vector<std::string>* hosts) {
  if (v.is_structured()) {
    for (const auto& e : v) url_hosts(e, hosts);
    return;
  }
  if (!v.is_string()) return;
  const std::string s = v.get<std::string>();
  const auto scheme = s.find("://");
  if (scheme == std::string::npos || s.rfind("file://", 0) == 0) return;
  std::string host = s.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?#"));
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  host = host.substr(0, host.rfind(':') == std::string::npos || host[0] == '[' ? host.size() : host.rfind(':'));
  for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  hosts->push_back(host);
}

// A schema's default, examples and description name public hosts. Sent as they are (or, for an
// optional argument with a URL default, left out so the server fills it in), they would make a
// server that fetches what it is given reach the network: no call carries one, the defaulted
// arguments are sent pointed at 127.0.0.1:9, and the run says so once. --allow-remote-urls sends
// the schema's URLs.
TEST(NetworkSafety, NoCallSendsASchemaURLToAnotherHost) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hostile-schemas";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/remote-defaults.json";
  std::ofstream(file) << nlohmann::json::parse(R"({"type":"object","properties":{
    "data":{"type":"string","format":"uri","default":"https://raw.githubusercontent.com/x/README.md"},
    "mirror":{"type":"string","examples":["https://api.github.com/repos"],"description":"e.g. 'https://example.org/a'"},
    "opts":{"type":"object","properties":{"endpoint":{"type":"string","default":"http://Example.COM:8080/v1"}},
            "default":{"endpoint":"https://example.net/"}}}})").dump();
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/schema_server.py";
  for (bool allow : {false, true}) {
    SCOPED_TRACE(allow ? "--allow-remote-urls" : "default");
    const std::string record = dir + "/remote-defaults-" + std::to_string(allow) + ".jsonl";
    std::vector<std::string> args{"--calls", "30", "--no-cases", "--record", record};
    if (allow) args.push_back("--allow-remote-urls");
    for (const char* a : {"--env", "", "--", "python3", ""}) args.emplace_back(a);
    args[args.size() - 4] = "SCHEMA_FILE=" + file;
    args.back() = server;
    auto r = run_harness(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::ifstream in(record);
    std::string line;
    std::size_t calls = 0, with_data = 0;
    std::set<std::string> hosts;
    while (std::getline(in, line)) {
      auto x = nlohmann::json::parse(line);
      if (x["request"].value("method", "") != "tools/call") continue;
      ++calls;
      const auto& a = x["request"]["params"]["arguments"];
      if (a.is_object() && a.contains("data")) ++with_data;
      std::vector<std::string> found;
      url_hosts(a, &found);
      hosts.insert(found.begin(), found.end());
    }
    EXPECT_GE(calls, 20u);
    const std::string pinned = "optional 'data' (default \"https://raw.githubusercontent.com/x/README.md\")";
    if (!allow) {
      EXPECT_EQ(hosts, (std::set<std::string>{"127.0.0.1"}));
      EXPECT_EQ(with_data, calls) << "a call left 'data' to the server's default";
      const auto at = r.out.find(pinned);
      ASSERT_NE(at, std::string::npos) << r.out;
      EXPECT_EQ(r.out.find(pinned, at + 1), std::string::npos) << "said twice: " << r.out;
      EXPECT_NE(r.out.find("'opts'"), std::string::npos) << r.out;
    } else {
      EXPECT_TRUE(hosts.count("raw.githubusercontent.com")) << r.out;
      EXPECT_TRUE(hosts.count("api.github.com")) << r.out;
      EXPECT_EQ(r.out.find(pinned), std::string::npos) << r.out;
    }
  }
}

// SIGINT, SIGTERM and SIGHUP (Ctrl-C, a cancelled CI job, a closed terminal) in the middle of a
// call: the run stops at once, kills its server, writes every requested report marked
// interrupted with what it found before (here a T-FRAMING finding), and exits 128 + the signal.
TEST(Signals, AnInterruptedRunWritesItsReportsAndExitsWithTheShellsCode) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/signals";
  std::filesystem::create_directories(dir);
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/slow_server.py";
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig);
    const std::string stem = dir + "/" + std::to_string(sig);
    const std::string mark = stem + ".mark", json_path = stem + ".json", md_path = stem + ".md";
    for (const auto& p : {mark, json_path, md_path}) std::filesystem::remove(p);
    // --no-sandbox: the test watches the server from outside (its pid in MARK, a file of ours).
    std::vector<std::string> args = {harness_binary(), "--json", json_path, "--markdown", md_path, "--timeout", "30000",
                                     "--no-cases", "--no-sandbox", "--env", "MARK=" + mark, "--", "python3", server};
    const pid_t pid = spawn_logged(args, stem + ".out", stem + ".err");
    ASSERT_GT(pid, 0);
    // Wait for the server to be inside its slow call.
    const auto start = std::chrono::steady_clock::now();
    while (!std::filesystem::exists(mark) && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the pid is written
    ASSERT_TRUE(std::filesystem::exists(mark)) << slurp(stem + ".err");
    const pid_t server_pid = std::stoi(slurp(mark));
    const Stopped stopped = signal_and_reap(pid, sig);
    ASSERT_TRUE(stopped.in_time) << "still running 30 s after the signal";
    // Not the watchdog (kInterruptGraceSeconds, which kills with the signal itself): the run's own exit.
    ASSERT_TRUE(WIFEXITED(stopped.status)) << "ended by signal " << WTERMSIG(stopped.status) << "\n" << slurp(stem + ".err");
    EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + sig);
    EXPECT_LT(stopped.seconds, 5.0);
    const auto report = nlohmann::json::parse(slurp(json_path), nullptr, false);
    ASSERT_TRUE(report.is_object()) << slurp(stem + ".err");
    EXPECT_TRUE(report_schema_violations(report).empty()) << report_schema_violations(report).front();
    EXPECT_EQ(report.value("interrupted", false), true);
    EXPECT_EQ(report["exit_code"], 128 + sig);
    EXPECT_EQ(report["verdict"], "fail");  // the T-FRAMING finding made before the signal is true
    ASSERT_EQ(report["findings"].size(), 1u) << report["findings"].dump(2);
    EXPECT_EQ(report["findings"][0]["invariant"], "T-FRAMING");
    EXPECT_NE(slurp(md_path).find("**Interrupted**"), std::string::npos);
    // The server was stopped with the run (it would sleep for another minute).
    EXPECT_TRUE(gone_or_killed(server_pid)) << "server " << server_pid << " outlived the run";
  }
}

// A run spending its time reading huge answers (9 MB of three million empty objects per call,
// in code that does not look at the signal) when SIGTERM comes, as `timeout` sends it: the
// reports are written, marked interrupted, whether the run notices the signal between answers or
// the stop writer (cli/stop.h) writes them from the run's snapshot 3 s after it; never the signal
// watchdog's exit with nothing written. (cli_stop_test proves the stop writer on a run that never
// returns.)
TEST(Signals, ARunReadingHugeAnswersStillWritesItsReports) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/signals-busy";
  std::filesystem::create_directories(dir);
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/busy_server.py";
  const std::string mark = dir + "/mark", json_path = dir + "/r.json", junit_path = dir + "/r.xml";
  for (const auto& p : {mark, json_path, junit_path}) std::filesystem::remove(p);
  // --no-sandbox: the test watches the server from outside (its pid in MARK, a file of ours).
  std::vector<std::string> args = {harness_binary(), "--json", json_path, "--junit", junit_path, "--calls", "40",
                                   "--no-cases", "--no-sandbox", "--env", "MARK=" + mark, "--", "python3", server};
  const pid_t pid = spawn_logged(args, dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  const auto start = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(mark) && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an answer is being read
  ASSERT_TRUE(std::filesystem::exists(mark)) << slurp(dir + "/err");
  const pid_t server_pid = std::stoi(slurp(mark));
  const Stopped stopped = signal_and_reap(pid, SIGTERM);
  ASSERT_TRUE(stopped.in_time) << "still running 30 s after the signal";
  ASSERT_TRUE(WIFEXITED(stopped.status)) << "ended by signal " << WTERMSIG(stopped.status) << "\n" << slurp(dir + "/err");
  EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + SIGTERM);
  EXPECT_LT(stopped.seconds, 8.0);
  const auto report = nlohmann::json::parse(slurp(json_path), nullptr, false);
  ASSERT_TRUE(report.is_object()) << slurp(dir + "/err");
  EXPECT_TRUE(report_schema_violations(report).empty()) << report_schema_violations(report).front();
  EXPECT_EQ(report.value("interrupted", false), true);
  // "fail" when a true finding (H-SIZE: a 9 MB answer is past every host's limit) was made
  // before the signal, else "interrupted"; never a pass.
  EXPECT_TRUE(report["verdict"] == "interrupted" || report["verdict"] == "fail") << report["verdict"];
  EXPECT_EQ(report["exit_code"], 128 + SIGTERM);
  EXPECT_EQ(report["server"].value("name", ""), "busy");
  EXPECT_NE(slurp(junit_path).find("<testsuites"), std::string::npos);
  EXPECT_TRUE(gone_or_killed(server_pid)) << "server " << server_pid << " outlived the run";
}

// 20,000 tools and --time-budget 2: what the run does before its first call (listing, selecting,
// judging the listing) and for the tools it no longer calls (no plan is built past the budget)
// costs a small multiple of the listing, so the run ends seconds after its budget with a report
// of every tool. (Before: a scan per tool per lookup, minutes for 20,000 tools, 150 s of silence
// after the banner for 50,000.)
TEST(Budget, TwentyThousandToolsEndWithinTheirTimeBudget) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/many_tools_server.py";
  const auto start = std::chrono::steady_clock::now();
  auto r = run_harness({"--seed", "1", "--no-cases", "--time-budget", "2", "--", "python3", server, "20000"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_LT(seconds, 20.0);
  // The first 10,000 are kept (mcp::Client::ListBounds), and the run says so.
  EXPECT_EQ(r.report["tools"].size(), 10000u);
  bool cut_noted = false;
  for (const auto& n : r.report["notes"])
    cut_noted = cut_noted || n.get<std::string>().find("the first 10000 are tested, the 10000 after them were not kept") != std::string::npos;
  EXPECT_TRUE(cut_noted) << r.report["notes"].dump(2);
  bool budget_noted = false;
  for (const auto& n : r.report["notes"]) budget_noted = budget_noted || n.get<std::string>().rfind("--time-budget reached", 0) == 0;
  EXPECT_TRUE(budget_noted) << r.report["notes"].dump(2);
  std::size_t skipped = 0;
  for (const auto& t : r.report["tools"]) skipped += t.value("skipped", "") == "time budget reached" ? 1 : 0;
  EXPECT_GT(skipped, 5000u);
}

// What a server writes on stdout after its end-of-file, before it exits, is read and judged: a
// farewell line there is stdout pollution (T-FRAMING) like any other; the same server exiting
// quietly has no finding.
TEST(Shutdown, ALineWrittenAfterEndOfFileIsJudged) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/goodbye_server.py";
  auto r = run_harness({"--calls", "3", "--no-cases", "--", "python3", server});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-FRAMING"}) << r.report["findings"].dump(2);
  EXPECT_NE(r.report["findings"].dump().find("goodbye"), std::string::npos) << r.report["findings"].dump(2);
  auto quiet = run_harness({"--calls", "3", "--no-cases", "--env", "GOODBYE=0", "--", "python3", server});
  ASSERT_TRUE(quiet.report.is_object()) << quiet.err;
  EXPECT_EQ(quiet.exit_code, 0) << quiet.report["findings"].dump(2);
  EXPECT_TRUE(quiet.report["findings"].empty());
}

// A server that starts a daemon in its own session leaves it running when the run has stopped the
// server and killed its process group: one server-level T-LEFTOVER warning naming the process
// (found by the run marker every spawned server carries in its environment), still running
// unless --kill-leftovers ends it; the same server starting nothing passes T-LEFTOVER.
int leftover_pid(const nlohmann::json& f) {
  const std::string d = f.value("diagnosis", "");
  const auto at = d.find("pid ");
  return at == std::string::npos ? 0 : std::atoi(d.c_str() + at + 4);
}
bool gone(int pid) {
  for (int i = 0; i < 100; ++i) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Leftovers, ADetachedDaemonIsOneServerLevelWarningAndKillLeftoversEndsIt) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/daemon_server.py";
  auto r = run_harness({"--calls", "2", "--no-cases", "--env", "DAEMON_SECONDS=60", "--", "python3", server});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  const int pid = leftover_pid(f);
  if (pid > 0) ::kill(pid, SIGKILL);  // reaped whatever the assertions say
  EXPECT_EQ(f["invariant"], "T-LEFTOVER");
  EXPECT_EQ(f["tool"], "") << "the server's cause, not a tool's";
  EXPECT_EQ(f["severity"], "warning");
  EXPECT_NE(f["diagnosis"].get<std::string>().find("`sleep 60` (its own session"), std::string::npos) << f.dump(2);
  EXPECT_NE(f["diagnosis"].get<std::string>().find("--kill-leftovers"), std::string::npos) << f.dump(2);
  EXPECT_EQ(r.exit_code, 0) << "a warning: " << r.out;
  EXPECT_GT(pid, 1) << f.dump(2);

  auto killed = run_harness({"--calls", "2", "--no-cases", "--kill-leftovers", "--env", "DAEMON_SECONDS=60", "--", "python3", server});
  ASSERT_TRUE(killed.report.is_object()) << killed.err;
  ASSERT_EQ(killed.report["findings"].size(), 1u) << killed.report["findings"].dump(2);
  const auto& k = killed.report["findings"][0];
  const int kpid = leftover_pid(k);
  ASSERT_GT(kpid, 1) << k.dump(2);
  const bool ended = gone(kpid);
  if (!ended) ::kill(kpid, SIGKILL);
  EXPECT_TRUE(ended) << "--kill-leftovers ended pid " << kpid;
  EXPECT_NE(k["diagnosis"].get<std::string>().find("Ended by --kill-leftovers"), std::string::npos) << k.dump(2);

  auto twin = run_harness({"--calls", "2", "--no-cases", "--env", "DAEMON=0", "--", "python3", server});
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(twin.report["findings"].empty()) << twin.report["findings"].dump(2);
  EXPECT_EQ(twin.report["server_outcomes"].value("T-LEFTOVER", ""), "passed") << twin.report["server_outcomes"].dump();
}

// A server that answers every call under a wrong id: one server-level T-ID finding (ids are the
// server's JSON-RPC layer's, not a tool's), and no call waits out the timeout once its stray answer
// has come (before: a 30 s timeout per call, 8 minutes for this run; the bound below is 8 times
// what a timeout per call would be short of).
TEST(StrayIds, OneServerLevelFindingAndNoCallWaitsOutTheTimeout) {
  auto r = run_harness({"--timeout", "30000", "--calls", "4", "--seed", "1", "--no-cases", "--", fixture_server(),
                        "--defect", "wrong-id"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "T-ID");
  EXPECT_EQ(f["tool"], "");
  const int calls = r.report["stats"]["calls"].get<int>();
  EXPECT_GE(calls, 8);
  EXPECT_EQ(f["count"].get<int>(), calls) << "every call's answer came under a wrong id";
  EXPECT_LT(r.report["duration_ms"].get<long long>(), 60000) << calls << " calls";
  EXPECT_EQ(r.exit_code, 1);
}

// A server that stops exiting on end-of-file only after a certain call: its T-SHUTDOWN case
// carries the calls made on that server instance, and `replay` makes them again first, so it
// still fails (without them the replay would say "no longer fails"), and the case's shell replay
// sends them too.
TEST(StateCarryingCases, AShutdownCaseReplaysTheCallsThatMadeTheState) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/sticky_server.py";
  const std::string cases = std::string(CTXO_BINARY_DIR) + "/test-tmp/sticky-cases";
  std::filesystem::remove_all(cases);
  auto r = run_harness({"--calls", "6", "--tools", "arm", "--grace", "300", "--cases", cases, "--", "python3", server});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_EQ(r.error_ids(), std::set<std::string>{"T-SHUTDOWN"}) << r.report["findings"].dump(2);
  nlohmann::json f;
  for (const auto& x : r.report["findings"])
    if (x["invariant"] == "T-SHUTDOWN") f = x;
  EXPECT_NE(f["diagnosis"].get<std::string>().find("tool calls made on it"), std::string::npos) << f.dump(2);
  EXPECT_NE(f["replay"].get<std::string>().find("\"on\":true"), std::string::npos) << f["replay"];
  const std::string path = f["case_file"].get<std::string>();
  const auto doc = nlohmann::json::parse(slurp(path), nullptr, false);
  ASSERT_TRUE(doc.contains("sequence")) << doc.dump(2);
  // Made minimal by starting fresh instances: the one arming call is what it needs (the run made
  // more on the failing instance: `ping`s, `arm` with false, the same call twice).
  ASSERT_EQ(doc["sequence"].size(), 1u) << doc["sequence"].dump();
  EXPECT_EQ(doc["sequence"][0]["params"]["name"], "arm");
  EXPECT_EQ(doc["sequence"][0]["params"]["arguments"].value("on", false), true) << doc["sequence"].dump();
  EXPECT_NE(f["diagnosis"].get<std::string>().find("a fresh instance stays up after only 1 of them"), std::string::npos)
      << f["diagnosis"];
  auto again = run_harness({"replay", path}, false);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("still fails: T-SHUTDOWN"), std::string::npos) << again.out;
}

// A server that never exits on end-of-file, whatever it was called with: a fresh instance sent no
// call stays up too, so its case replays no call (it replayed every call of the run before).
TEST(StateCarryingCases, AShutdownThatNeedsNoCallReplaysNone) {
  const std::string cases = std::string(CTXO_BINARY_DIR) + "/test-tmp/no-shutdown-cases";
  std::filesystem::remove_all(cases);
  auto r = run_harness({"--calls", "4", "--grace", "300", "--seed", "1", "--cases", cases, "--", fixture_server(),
                        "--defect", "no-shutdown"});
  ASSERT_EQ(r.error_ids(), std::set<std::string>{"T-SHUTDOWN"}) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_NE(f["diagnosis"].get<std::string>().find("a fresh instance sent no call stays up too"), std::string::npos)
      << f["diagnosis"];
  const auto doc = nlohmann::json::parse(slurp(f["case_file"].get<std::string>()), nullptr, false);
  EXPECT_FALSE(doc.contains("sequence")) << doc.dump(2);
  EXPECT_EQ(f["replay"].get<std::string>().find("tools/call"), std::string::npos) << f["replay"];
}

}  // namespace
}  // namespace ctxo::test
