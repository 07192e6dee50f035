// SPDX-License-Identifier: MIT
// StopWriter (cli/stop.h): a run that never returns after a stop signal still gets its reports,
// written from its latest snapshot, marked interrupted, and the process exits with the code the
// writer returns (128 + the signal); a run that returns in time writes its own, and the stop
// writer writes nothing. Death tests: the writer ends the process it runs in.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/stop.h"
#include "core/interrupt.h"

namespace ctxo::cli {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

engine::RunReport with_finding() {
  engine::RunReport r;
  r.server_name = "stuck";
  r.calls = 3;
  r.successes = 3;
  engine::ReportedFinding rf;
  rf.finding.invariant = "TR-COUNT";
  rf.finding.tool = "search";
  r.findings.push_back(rf);
  return r;
}

// What a write function records of the report it is given: its verdict, exit code, server,
// findings and last note, one per line.
StopWriter::Write recorder(const std::string& path) {
  return [path](engine::RunReport& r) {
    std::ofstream(path) << engine::to_string(r.verdict) << "\n"
                        << r.exit_code << "\n"
                        << r.server_name << "\n"
                        << r.findings.size() << "\n"
                        << (r.notes.empty() ? "" : r.notes.back()) << "\n";
    return r.exit_code;
  };
}

using StopWriterDeathTest = ::testing::Test;

TEST_F(StopWriterDeathTest, AStuckRunGetsItsSnapshotWrittenAndTheProcessExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = std::string(CTXO_BINARY_DIR) + "/test-tmp/stop-writer-stuck.txt";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::filesystem::remove(path);
  EXPECT_EXIT(
      {
        auto snapshot = std::make_shared<engine::Snapshot>();
        snapshot->publish(with_finding());
        StopWriter stop(snapshot, engine::RunReport{}, recorder(path), std::chrono::milliseconds(200));
        core::g_interrupt.store(SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(20));  // the run, stuck
        std::exit(99);
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "");
  std::istringstream got(slurp(path));
  std::string verdict, code, server, findings, note;
  std::getline(got, verdict);
  std::getline(got, code);
  std::getline(got, server);
  std::getline(got, findings);
  std::getline(got, note);
  EXPECT_EQ(verdict, "fail") << "the finding made before the signal is true";
  EXPECT_EQ(code, std::to_string(128 + SIGTERM));
  EXPECT_EQ(server, "stuck");
  EXPECT_EQ(findings, "1");
  EXPECT_EQ(note, StopWriter::note(std::chrono::milliseconds(200)));
}

TEST_F(StopWriterDeathTest, WithNoSnapshotYetTheFallbackIsWritten) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = std::string(CTXO_BINARY_DIR) + "/test-tmp/stop-writer-fallback.txt";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::filesystem::remove(path);
  EXPECT_EXIT(
      {
        engine::RunReport fallback;
        fallback.server_name = "not started yet";
        StopWriter stop(std::make_shared<engine::Snapshot>(), fallback, recorder(path), std::chrono::milliseconds(100));
        core::g_interrupt.store(SIGINT);
        std::this_thread::sleep_for(std::chrono::seconds(20));
        std::exit(99);
      },
      ::testing::ExitedWithCode(128 + SIGINT), "");
  const std::string got = slurp(path);
  EXPECT_EQ(got.substr(0, got.find('\n')), "interrupted");
  EXPECT_NE(got.find("not started yet"), std::string::npos);
}

TEST(StopWriter, ARunThatReturnsInTimeWritesItsOwnReports) {
  const std::string path = std::string(CTXO_BINARY_DIR) + "/test-tmp/stop-writer-in-time.txt";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::filesystem::remove(path);
  {
    StopWriter stop(std::make_shared<engine::Snapshot>(), engine::RunReport{}, recorder(path), std::chrono::milliseconds(300));
    core::g_interrupt.store(SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the run winds down in time
    EXPECT_TRUE(stop.claim());
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // past the grace: nothing happens
  }
  core::g_interrupt.store(0);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace ctxo::cli
