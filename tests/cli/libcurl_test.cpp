// SPDX-License-Identifier: MIT
// libcurl is loaded at run time (transport/curl_api.cpp, issue 32): with none to load
// (CTXO_LIBCURL naming a library that does not exist, as on a bare image), --url is a usage error
// (exit 2, one line) naming the package to install, and a stdio server is checked as ever.
// `--version` names the version and the commit it was built from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

/// CTXO_LIBCURL set for the runs of one test (the harness inherits the environment).
class NoLibcurl : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("CTXO_LIBCURL", "libctxo-absent-curl.so.4", 1); }
  void TearDown() override { ::unsetenv("CTXO_LIBCURL"); }
};

bool one_error_line(const std::string& err) {
  return err.rfind("error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

// Port 9 answers nothing: with libcurl loaded this run would be exit 3 (not reached).
TEST_F(NoLibcurl, UrlIsAUsageErrorNamingThePackage) {
  HarnessRun r = run_harness({"--seed", "1", "--url", "http://127.0.0.1:9/mcp"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("--url needs libcurl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("libctxo-absent-curl.so.4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("apt-get install libcurl4"), std::string::npos) << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["error"].value("code", std::string()), "usage") << r.report["error"].dump();
}

// A library that is not libcurl: named with the function it lacks.
TEST_F(NoLibcurl, LibraryWithoutCurlFunctionsIsNamed) {
  ::setenv("CTXO_LIBCURL", "libm.so.6", 1);
  HarnessRun r = run_harness({"--seed", "1", "--url", "http://127.0.0.1:9/mcp"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("libm.so.6 has no curl_global_init"), std::string::npos) << r.err;
}

TEST_F(NoLibcurl, StdioServerIsCheckedWithoutIt) {
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--", example_server()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["verdict"], "pass");
  EXPECT_EQ(r.err.find("libcurl"), std::string::npos) << r.err;
}

TEST(Version, NamesVersionAndCommit) {
  HarnessRun v = run_harness({"--version"}, false);
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_TRUE(std::regex_match(v.out, std::regex(R"(ctxo-conform [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{4,}|unknown)\)\n)")))
      << v.out;
}

}  // namespace
}  // namespace ctxo::test
