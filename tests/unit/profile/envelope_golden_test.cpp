// SPDX-License-Identifier: MIT
// The envelope goldens in corpus/envelopes/: every valid one validates against its profile (as
// the form its name says); success ones are detected as that profile, error and miss ones as that
// profile or (when their shape is generic) as none; every invalid one fails, as the form and at
// the JSON Pointer its expected.tsv line names.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/text.h"
#include "profile/profile.h"

namespace {

namespace fs = std::filesystem;
using namespace ctxo::profile;
using nlohmann::json;

const fs::path kGoldens = fs::path(CTXO_SOURCE_DIR) / "corpus" / "envelopes";
const char* const kProfiles[] = {"ctxo", "budget", "meta", "truncation-info"};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> goldens(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<Profile>& builtins() {
  static const std::vector<Profile> all = [] {
    auto r = load_builtins();
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? std::move(*r) : std::vector<Profile>{};
  }();
  return all;
}

const Profile* find(std::string_view name) {
  for (const auto& p : builtins())
    if (p.name == name) return &p;
  return nullptr;
}

std::string dump(const std::vector<Violation>& vs) {
  std::string out;
  for (const auto& v : vs) out += "\n  " + to_string(v);
  return out;
}

TEST(EnvelopeGoldens, EnoughOfThemWithSomeNonAscii) {
  for (const char* name : kProfiles) {
    SCOPED_TRACE(name);
    const auto valid = goldens(kGoldens / "valid" / name);
    const auto invalid = goldens(kGoldens / "invalid" / name);
    EXPECT_GE(valid.size(), 4u);
    EXPECT_GE(invalid.size(), 6u);
    int non_ascii = 0;
    for (const auto& f : valid) {
      const std::string text = slurp(f);
      EXPECT_TRUE(ctxo::is_valid_utf8(text)) << f;
      non_ascii += std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    }
    EXPECT_GE(non_ascii, 1);
  }
}

TEST(EnvelopeGoldens, ValidOnesValidateAndAreDetected) {
  for (const char* name : kProfiles) {
    const Profile* profile = find(name);
    ASSERT_NE(profile, nullptr) << name;
    for (const auto& file : goldens(kGoldens / "valid" / name)) {
      SCOPED_TRACE(file.string());
      auto doc = parse_json_text(slurp(file));
      ASSERT_TRUE(doc.ok()) << doc.error().message;
      const std::string stem = file.stem().string();
      const std::string form = stem.substr(0, stem.find('_'));  // success_*, miss_*, error_*
      auto check = validate_envelope(*profile, *doc);
      ASSERT_TRUE(check.form);
      EXPECT_EQ(form_name(*check.form), form);
      EXPECT_TRUE(check.ok()) << dump(check.violations);
      // Detection rules describe success answers; an error or miss answer is detected only
      // when it carries the profile's distinctive fields too (budget's tokenBudget, meta's
      // ok/error/warnings), and never as another profile.
      const Profile* detected = detect(*doc, builtins());
      if (form == "success") {
        ASSERT_NE(detected, nullptr);
      }
      if (detected) {
        EXPECT_EQ(detected->name, name);
      }
    }
  }
}

TEST(EnvelopeGoldens, GenericErrorAndMissShapesAreNotDetected) {
  // {error:true, message}, {found:false, hint} and {error: ...} say nothing about the server:
  // they are judged once its success answers have identified the profile.
  const char* const generic[] = {"ctxo/error_validation.json", "ctxo/miss_emoji_hint.json",
                                 "ctxo/miss_symbol_not_indexed.json", "truncation-info/error_string.json"};
  for (const char* file : generic) {
    SCOPED_TRACE(file);
    auto doc = parse_json_text(slurp(kGoldens / "valid" / file));
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    EXPECT_EQ(detect(*doc, builtins()), nullptr);
  }
  const char* const distinctive[] = {"budget/error_lsp_unavailable.json", "budget/error_node_not_found.json",
                                     "meta/error_object.json"};
  for (const char* file : distinctive) {
    SCOPED_TRACE(file);
    auto doc = parse_json_text(slurp(kGoldens / "valid" / file));
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    const Profile* detected = detect(*doc, builtins());
    ASSERT_NE(detected, nullptr);
    EXPECT_EQ(fs::path(file).parent_path().string(), detected->name);
  }
}

TEST(EnvelopeGoldens, InvalidOnesFailAtTheNamedPointer) {
  for (const char* name : kProfiles) {
    const Profile* profile = find(name);
    ASSERT_NE(profile, nullptr) << name;
    // expected.tsv: file <TAB> form <TAB> pointer ("" = the root)
    std::map<std::string, std::pair<std::string, std::string>> expected;
    std::istringstream tsv(slurp(kGoldens / "invalid" / name / "expected.tsv"));
    for (std::string line; std::getline(tsv, line);) {
      if (line.empty() || line[0] == '#') continue;
      const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
      ASSERT_NE(t2, std::string::npos) << line;
      expected[line.substr(0, t1)] = {line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
    }
    const auto files = goldens(kGoldens / "invalid" / name);
    EXPECT_EQ(expected.size(), files.size()) << "every invalid golden needs a line in expected.tsv";
    for (const auto& file : files) {
      SCOPED_TRACE(file.string());
      const std::string base = file.filename().string();
      EXPECT_EQ(base.rfind(std::string(name) + "_", 0), 0u) << "named <profile>_<what it breaks>.json";
      auto it = expected.find(base);
      ASSERT_NE(it, expected.end()) << "missing from expected.tsv";
      auto doc = parse_json_text(slurp(file));
      ASSERT_TRUE(doc.ok()) << doc.error().message;
      auto check = validate_envelope(*profile, *doc);
      ASSERT_TRUE(check.form);
      EXPECT_EQ(form_name(*check.form), it->second.first);
      ASSERT_FALSE(check.ok());
      const std::string& pointer = it->second.second;
      EXPECT_TRUE(std::any_of(check.violations.begin(), check.violations.end(),
                              [&](const Violation& v) { return v.pointer == pointer; }))
          << "no violation at '" << pointer << "':" << dump(check.violations);
      // Violations deeper than the named pointer would mean the golden breaks something else too.
      for (const auto& v : check.violations)
        EXPECT_EQ(pointer.rfind(v.pointer, 0), 0u) << "unrelated violation " << to_string(v);
    }
  }
}

TEST(EnvelopeGoldens, ValidOnesOfOtherProfilesAreNotValidHere) {
  // Each profile's schemas must be tight enough to reject another profile's success envelopes.
  for (const char* name : kProfiles) {
    const Profile* profile = find(name);
    ASSERT_NE(profile, nullptr);
    for (const char* other : kProfiles) {
      if (std::string(other) == name) continue;
      for (const auto& file : goldens(kGoldens / "valid" / other)) {
        if (file.filename().string().rfind("success_", 0) != 0) continue;
        auto doc = parse_json_text(slurp(file));
        ASSERT_TRUE(doc.ok());
        EXPECT_FALSE(validate_envelope(*profile, *doc).ok()) << name << " accepts " << file;
      }
    }
  }
}

}  // namespace
