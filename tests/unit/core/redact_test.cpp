// SPDX-License-Identifier: MIT
// core::Redactor: every occurrence of every secret is replaced, whatever surrounds it (overlaps,
// a secret inside another, inside the marker, or formed by joining text around a marker), in
// plain text and in JSON (strings, keys, numbers, escaped forms); values too short or plainly not
// credentials are never secrets; env names that look secret are recognised.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/text.h"

namespace ctxo::core {
namespace {

using nlohmann::json;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(Redactor, BearerHeaderAndItsTokenAlone) {
  Redactor r;
  r.add_header_value("Bearer SECRET123");
  EXPECT_EQ(r.scrub("invalid token: Bearer SECRET123"), "invalid token: <redacted>");
  EXPECT_EQ(r.scrub("token=SECRET123&x=1"), "token=<redacted>&x=1");
  EXPECT_EQ(r.scrub("nothing here"), "nothing here");
  EXPECT_EQ(r.scrub("SECRET12"), "SECRET12");  // a prefix is not the secret
}

TEST(Redactor, ShortAndPlainValuesAreNotSecrets) {
  Redactor r;
  EXPECT_FALSE(r.add("1"));
  EXPECT_FALSE(r.add("abc"));
  EXPECT_FALSE(r.add("4096"));     // a limit
  EXPECT_FALSE(r.add("8080"));     // a port
  EXPECT_FALSE(r.add("1234567"));  // seven digits: still a number
  EXPECT_FALSE(r.add("TRUE"));
  EXPECT_FALSE(r.add("none"));
  r.add_header_value("1");  // X-Debug: 1
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.scrub("1 2 3 4096 true"), "1 2 3 4096 true");
  EXPECT_TRUE(r.add("12345678"));  // eight digits: a PIN-like credential
  EXPECT_TRUE(r.add("abcd"));
  EXPECT_EQ(r.scrub("x12345678y abcd"), "x<redacted>y <redacted>");
}

TEST(Redactor, SecretEnvNames) {
  for (const char* n : {"API_TOKEN", "github_token", "OPENAI_API_KEY", "aws_secret_access_key", "DB_PASSWORD", "PGPASS",
                        "MY_PASSPHRASE", "AUTHORIZATION", "OAUTH_CLIENT", "GOOGLE_CREDENTIALS", "SESSION_COOKIE"})
    EXPECT_TRUE(secret_env_name(n)) << n;
  for (const char* n : {"PORT", "HTTP_CASE", "CTXO_RESPONSE_LIMIT", "TOOL_MAX_OUTPUT_BYTES", "PATH", "HOME", "SCHEMA_FILE"})
    EXPECT_FALSE(secret_env_name(n)) << n;
  Redactor r;
  r.add_env("PORT", "31337000");
  r.add_env("MAX_TOKENS", "4096");  // the name looks secret, the value is a number
  EXPECT_TRUE(r.empty());
  r.add_env("API_TOKEN", "tok-abc-123");
  EXPECT_EQ(r.scrub("API_TOKEN=tok-abc-123"), "API_TOKEN=<redacted>");
}

TEST(Redactor, OverlappingAndTouchingOccurrencesAreOneRun) {
  Redactor r;
  r.add("abab");
  EXPECT_EQ(r.scrub("ababab"), "<redacted>");
  EXPECT_EQ(r.scrub("xababababy"), "x<redacted>y");
  EXPECT_EQ(r.scrub("abab abab"), "<redacted> <redacted>");
}

TEST(Redactor, OneSecretInsideAnother) {
  Redactor r;
  r.add("SECRET");
  r.add("SECRET123");
  r.add("ET12");
  EXPECT_EQ(r.secrets().front(), "SECRET123");  // longest first
  EXPECT_EQ(r.scrub("xSECRET123y"), "x<redacted>y");
  EXPECT_EQ(r.scrub("xSECRETy"), "x<redacted>y");
  EXPECT_EQ(r.scrub("aET12b"), "a<redacted>b");
}

TEST(Redactor, SecretInsideTheMarkerGetsAnotherMarker) {
  Redactor r;
  r.add("dact");
  EXPECT_NE(r.marker(), "<redacted>");
  const std::string out = r.scrub("redacted: dact <redacted>");
  EXPECT_EQ(count(out, "dact"), 0u) << out;
  // Every candidate marker taken: a run of a character no secret holds.
  Redactor all;
  for (const char* s : {"dact", "DACT", "secret>", "****"}) all.add(s);
  EXPECT_FALSE(all.marker().empty());
  for (const auto& s : all.secrets()) EXPECT_EQ(all.marker().find(s), std::string::npos) << all.marker();
  EXPECT_FALSE(all.contains(all.scrub("dact DACT <secret> ********")));
}

TEST(Redactor, OccurrencesFormedAroundAMarkerAreReplacedToo) {
  Redactor r;
  r.add("x<redacted>y");  // holds the marker: text on both sides of one joins into it
  r.add("SECRET1");
  EXPECT_EQ(r.marker(), "<redacted>");
  EXPECT_EQ(r.scrub("xSECRET1y"), "<redacted>");
  Redactor o;
  o.add("ted>TAIL");  // overlaps the marker's end
  o.add("HEAD");
  const std::string out = o.scrub("HEADTAIL");  // "<redacted>TAIL" holds "ted>TAIL": a second pass
  EXPECT_FALSE(o.contains(out)) << out;
  EXPECT_EQ(out.find("TAIL"), std::string::npos) << out;
}

TEST(Redactor, EscapedFormsInRawText) {
  Redactor r;
  r.add("pa\"ss\\w0rd");
  r.add("p\xC3\xA4ssw\xC3\xB6rd");  // pässwörd
  r.add("it's-secret");
  r.add("tab\there");
  // JSON text a server sent, kept raw (an excerpt): its escapes.
  EXPECT_FALSE(r.contains(r.scrub(R"({"error":"bad pa\"ss\\w0rd"})")));
  EXPECT_EQ(r.scrub(R"({"error":"bad pa\"ss\\w0rd"})"), R"({"error":"bad <redacted>"})");
  EXPECT_EQ(r.scrub(R"("p\u00e4ssw\u00f6rd")"), R"("<redacted>")");
  // Shell quoting of a replay line, the \xNN escapes of an excerpt, percent-encoding.
  EXPECT_EQ(r.scrub(shell_quote("K=it's-secret")), "'K=<redacted>'");
  EXPECT_EQ(r.scrub(excerpt("tab\there!")), "<redacted>!");
  EXPECT_EQ(r.scrub("?q=it%27s-secret"), "?q=<redacted>");
}

TEST(Redactor, BasicCredentialsDecoded) {
  Redactor r;
  r.add_header_value("Basic dXNlcjpodW50ZXIyMg==");  // user:hunter22
  EXPECT_EQ(r.scrub("auth dXNlcjpodW50ZXIyMg== for user:hunter22; password hunter22"),
            "auth <redacted> for <redacted>; password <redacted>");
}

TEST(Redactor, JsonStringsKeysNumbersBeforeTheDump) {
  Redactor r;
  r.add("SECRET123");
  r.add("pa\"ss\\w0rd");
  r.add("p\xC3\xA4ssw\xC3\xB6rd");
  r.add("98765432");
  json v = {{"name", "tool-SECRET123"},
            {"SECRET123", {{"nested", {"a", "pa\"ss\\w0rd", "p\xC3\xA4ssw\xC3\xB6rd"}}}},
            {"x-SECRET123", 1},
            {"id", 98765432},
            {"n", 1.5}};
  EXPECT_TRUE(r.scrub_json(v));
  for (bool ascii : {false, true}) {
    const std::string d = v.dump(-1, ' ', ascii);
    EXPECT_FALSE(r.contains(d)) << d;
    EXPECT_EQ(count(d, "SECRET123"), 0u) << d;
    EXPECT_EQ(count(d, "98765432"), 0u) << d;
  }
  EXPECT_EQ(v["name"], "tool-<redacted>");
  EXPECT_EQ(v["id"], "<redacted>");
  EXPECT_EQ(v["n"], 1.5);
  EXPECT_TRUE(v.contains("<redacted>"));
  EXPECT_TRUE(v.contains("x-<redacted>"));
  // Two keys scrubbed to one are both kept.
  json two = {{"aSECRET123", 1}, {"a98765432", 2}};
  r.scrub_json(two);
  EXPECT_EQ(two.size(), 2u) << two.dump();
  // Nothing to scrub: unchanged.
  json clean = {{"a", {1, 2, "b"}}};
  EXPECT_FALSE(r.scrub_json(clean));
  EXPECT_EQ(clean, json({{"a", {1, 2, "b"}}}));
}

TEST(Redactor, EmptyRedactorChangesNothing) {
  Redactor r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.scrub("<redacted> SECRET"), "<redacted> SECRET");
  json v = {{"a", "b"}};
  EXPECT_FALSE(r.scrub_json(v));
}

// Property: random texts and secrets over a small alphabet that includes the marker's own
// characters (so secrets overlap the marker, hold parts of it and of each other): no secret
// survives, in any pass, and text without any secret is unchanged.
TEST(Redactor, RandomTextsKeepNoSecret) {
  std::mt19937 rng(20250727);
  const std::string alphabet = "ab<>redact";
  auto word = [&](std::size_t lo, std::size_t hi) {
    std::uniform_int_distribution<std::size_t> len(lo, hi), pick(0, alphabet.size() - 1);
    std::string s;
    for (std::size_t n = len(rng); n > 0; --n) s += alphabet[pick(rng)];
    return s;
  };
  for (int round = 0; round < 3000; ++round) {
    Redactor r;
    std::vector<std::string> secrets;
    for (int k = 0, n = 1 + round % 3; k < n; ++k) {
      secrets.push_back(word(4, 7));
      r.add(secrets.back());
    }
    std::string text = word(0, 40);
    // Plant each secret somewhere, sometimes split around "<redacted>".
    for (const auto& s : secrets) {
      std::uniform_int_distribution<std::size_t> at(0, text.size());
      text.insert(at(rng), round % 5 == 0 ? s.substr(0, 2) + "<redacted>" + s.substr(2) : s);
    }
    const std::string out = r.scrub(text);
    ASSERT_FALSE(r.contains(out)) << "secrets:" << ::testing::PrintToString(secrets) << " text:" << text << " out:" << out;
    for (const auto& s : secrets) ASSERT_EQ(out.find(s), std::string::npos) << s << " in " << out;
    const std::string clean = word(0, 20);
    if (!r.contains(clean)) {
      ASSERT_EQ(r.scrub(clean), clean);
    }
  }
}

// --url carries credentials (issue 45): its userinfo and its query values are secrets, as given
// and percent-decoded, and so is the Basic authorization a client makes of the userinfo.
TEST(RedactorUrl, UserinfoUserAndPassword) {
  Redactor r;
  r.add_url("https://alice42:pa%40ss-w0rd@mcp.example.com:8443/mcp");
  EXPECT_EQ(r.scrub("https://alice42:pa%40ss-w0rd@mcp.example.com:8443/mcp"),
            "https://<redacted>:<redacted>@mcp.example.com:8443/mcp");
  EXPECT_EQ(r.scrub("user alice42 said pa@ss-w0rd"), "user <redacted> said <redacted>");  // decoded too
  // "Authorization: Basic base64(alice42:pa@ss-w0rd)", as curl sends it, echoed by a server.
  EXPECT_EQ(r.scrub("got Basic YWxpY2U0MjpwYUBzcy13MHJk"), "got Basic <redacted>");
  EXPECT_EQ(r.urls(), std::vector<std::string>{"https://alice42:pa%40ss-w0rd@mcp.example.com:8443/mcp"});
  EXPECT_EQ(r.scrub("mcp.example.com:8443"), "mcp.example.com:8443");  // the host is no secret
}

TEST(RedactorUrl, PasswordOnlyAndShortUser) {
  Redactor r;
  r.add_url("http://me:hunter22@127.0.0.1:9/mcp");
  EXPECT_EQ(r.scrub("http://me:hunter22@127.0.0.1:9/mcp"), "http://me:<redacted>@127.0.0.1:9/mcp");
  EXPECT_EQ(r.scrub("me and hunter22"), "me and <redacted>");
  EXPECT_EQ(r.scrub("Basic bWU6aHVudGVyMjI="), "Basic <redacted>");
  Redactor token;  // a token as the user name (GitHub's form), no password
  token.add_url("https://ghp_abcdef123456@host/mcp");
  EXPECT_EQ(token.scrub("https://ghp_abcdef123456@host/mcp"), "https://<redacted>@host/mcp");
  EXPECT_EQ(token.scrub("Basic Z2hwX2FiY2RlZjEyMzQ1Njo="), "Basic <redacted>");  // base64 of "ghp_abcdef123456:"
}

TEST(RedactorUrl, QueryValuesAsWrittenAndDecoded) {
  Redactor r;
  r.add_url("http://127.0.0.1:9/mcp?api_key=KEY%2BS3CRET%21&session=a+b+c+d&limit=10&debug=true#frag-ment");
  EXPECT_EQ(r.scrub("http://127.0.0.1:9/mcp?api_key=KEY%2BS3CRET%21&session=a+b+c+d&limit=10&debug=true#frag-ment"),
            "http://127.0.0.1:9/mcp?api_key=<redacted>&session=<redacted>&limit=10&debug=true#frag-ment");
  EXPECT_EQ(r.scrub("echo: KEY+S3CRET!"), "echo: <redacted>");  // as a server decodes it
  EXPECT_EQ(r.scrub("a b c d"), "<redacted>");                  // '+' is a space in a query
  EXPECT_EQ(r.scrub("\"KEY+S3CRET!\""), "\"<redacted>\"");
  // Values add() refuses stay: a short number and a setting word are no credentials.
  EXPECT_EQ(r.scrub("limit 10, debug true"), "limit 10, debug true");
  EXPECT_EQ(r.scrub("frag-ment"), "frag-ment");  // the fragment is never sent
}

TEST(RedactorUrl, AUrlWithoutCredentialsAddsNothing) {
  Redactor r;
  r.add_url("http://127.0.0.1:8080/mcp");
  r.add_url("http://127.0.0.1:8080/mcp?n=5&x=on");
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.urls().empty());
  EXPECT_TRUE(Redactor::for_run({}, {}, "https://host/mcp?v=1").empty());
  EXPECT_FALSE(Redactor::for_run({}, {}, "https://host/mcp?token=abcdef99").empty());
}

TEST(RedactorUrl, SecretPartsAndTheirVariables) {
  using Kind = UrlSecret::Kind;
  const std::string url = "https://u:p@h/x?api-key=1&token=2&token=3&=4&bare#f?k=5";
  const auto parts = url_secrets(url);
  ASSERT_EQ(parts.size(), 7u);
  const std::vector<std::string> names = {"CTXO_URL_USER", "CTXO_URL_PASSWORD", "CTXO_URL_API_KEY", "CTXO_URL_TOKEN",
                                          "CTXO_URL_TOKEN_2", "CTXO_URL_QUERY", "CTXO_URL_QUERY_2"};
  const std::vector<std::string> values = {"u", "p", "1", "2", "3", "4", "bare"};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(parts[i].variable, names[i]);
    EXPECT_EQ(url.substr(parts[i].begin, parts[i].end - parts[i].begin), values[i]);
  }
  EXPECT_EQ(parts[0].kind, Kind::kUser);
  EXPECT_EQ(parts[1].kind, Kind::kPassword);
  EXPECT_EQ(parts[2].kind, Kind::kQuery);
  // A '@' in the path is no userinfo; a password may hold an unencoded '@' (the last one ends it).
  EXPECT_TRUE(url_secrets("http://h/a@b").empty());
  const std::string at = "http://u:p@q@h/";
  ASSERT_EQ(url_secrets(at).size(), 2u);
  EXPECT_EQ(at.substr(url_secrets(at)[1].begin, url_secrets(at)[1].end - url_secrets(at)[1].begin), "p@q");
  EXPECT_EQ(percent_decode("a%2Bb+c%zz%4"), "a+b+c%zz%4");
  EXPECT_EQ(percent_decode("a%2Bb+c", true), "a+b c");
}

}  // namespace
}  // namespace ctxo::core
