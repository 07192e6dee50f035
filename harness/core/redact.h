// SPDX-License-Identifier: MIT
// Secrets never leave: the values a user gave as credentials (every --header value, every
// --env value whose name looks secret, and the userinfo and query values of --url; the same from
// an mcpServers entry) are replaced by
// "<redacted>" in everything the harness writes or prints, server text included (a server that
// echoes "invalid token: Bearer ..." into an error, a tool name or its stderr). The CLI builds one
// Redactor from the run's options and scrubs on the way out: the finished report, the console
// listener's events, the --record transcript, case files and their names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::core {

/// What a secret is replaced by (unless a secret occurs inside it: see Redactor::marker).
inline constexpr std::string_view kRedacted = "<redacted>";

/// Values shorter than this are never treated as secrets: scrubbing "1" or "on" would blank
/// every digit or word of every report. Credentials are far longer.
inline constexpr std::size_t kMinSecretBytes = 4;

/// True when an environment variable's name says its value is a credential: it contains, in any
/// case, TOKEN, KEY, SECRET, PASS (PASSWORD, PASSWD, PASSPHRASE), AUTH (AUTHORIZATION, OAUTH),
/// CREDENTIAL or COOKIE.
bool secret_env_name(std::string_view name);

/// True when `value` can be a secret: at least kMinSecretBytes bytes, not a plain decimal number
/// of fewer than 8 digits (a limit, a port, a count: MAX_TOKENS=4096 is no credential, and
/// scrubbing it would blank every such number in a report), and not a word that is plainly a
/// setting (true, false, null, none, auto, yes, enabled, disabled; any case).
bool can_be_secret(std::string_view value);

/// A part of a URL that can carry a credential: the user or the password of its userinfo, or a
/// query value (`?api_key=...`; a parameter without '=' is all value).
struct UrlSecret {
  enum class Kind { kUser, kPassword, kQuery };
  Kind kind = Kind::kQuery;
  /// The environment variable a replay line takes it from: CTXO_URL_USER, CTXO_URL_PASSWORD, or
  /// CTXO_URL_ and the query key (upper case, other characters '_'; CTXO_URL_QUERY for none),
  /// with _2, _3, ... when a name repeats.
  std::string variable;
  std::size_t begin = 0, end = 0;  ///< Its bytes in the URL, as written (percent-encoded).
};

/// The parts of `url` that can carry a credential, in the URL's order (empty ones left out).
std::vector<UrlSecret> url_secrets(std::string_view url);

/// `s` with %XX decoded (and '+' read as a space when `plus`, as a query value is); a '%' not
/// followed by two hex digits is kept.
std::string percent_decode(std::string_view s, bool plus = false);

/// Replaces every occurrence of a set of secrets by a marker. Immutable once built, so one
/// instance may be used from any number of threads.
///
/// Each secret is matched as given and in the forms our outputs and servers write it in: JSON
/// string escapes (`\"`, `\\`, control characters, `\u00e9` for non-ASCII), the shell quoting of
/// replay lines (`'\''`), the `\xNN` escapes of excerpts and console text, and percent-encoding.
/// Matching is exact and byte-wise (KMP, linear in the text for each form); every occurrence is
/// found, overlapping ones included, and the union of their byte ranges is replaced (one marker per
/// run of touching occurrences), so a secret inside another is covered whichever is longer.
/// The marker is chosen to contain no secret, and scrubbing repeats until no secret is left (an
/// occurrence formed by text on both sides of a marker is replaced on the next pass; each pass
/// shortens the text, so it ends), which `scrub` guarantees for any input.
class Redactor {
 public:
  Redactor() = default;

  /// A redactor for a run: every header value (see add_header_value), every env value whose
  /// name is secret_env_name, and the credentials of the server's URL (see add_url).
  static Redactor for_run(const std::vector<std::pair<std::string, std::string>>& headers,
                          const std::map<std::string, std::string>& env, std::string_view url = {});

  /// Adds one secret (and its escaped forms). False when it cannot be a secret (can_be_secret).
  bool add(std::string_view secret);
  /// Adds an HTTP header value: whole, and, for "<scheme> <credential>" (Bearer, Basic, Token,
  /// ...), the credential alone (servers echo just the token); for Basic, also the decoded
  /// "user:password" and the password.
  void add_header_value(std::string_view value);
  /// Adds `value` when `name` is secret_env_name.
  void add_env(std::string_view name, std::string_view value);
  /// Adds the credentials `url` carries (url_secrets: each as written and percent-decoded), and
  /// the Basic authorization an HTTP client makes of its userinfo (base64 of "user:password"),
  /// which a server may echo. The URL is kept (urls()) so replay lines can name its variables.
  void add_url(std::string_view url);
  /// The URLs given to add_url that carry a secret.
  const std::vector<std::string>& urls() const { return urls_; }

  bool empty() const { return needles_.empty(); }
  /// The secrets as given (not their escaped forms), longest first.
  const std::vector<std::string>& secrets() const { return secrets_; }
  /// "<redacted>", or, when a secret occurs inside it, the first of a few other markers (or a
  /// run of a character no secret holds) that contains none.
  const std::string& marker() const { return marker_; }

  /// True when any secret (in any of its forms) occurs in `text`.
  bool contains(std::string_view text) const;
  /// `text` with every secret replaced; no secret occurs in the result.
  std::string scrub(std::string_view text) const;
  /// Scrubs `text` in place; true when it changed.
  bool scrub_in_place(std::string& text) const;
  /// Scrubs a JSON value before it is dumped: every string (object keys too; two keys made equal
  /// are kept apart by a " (2)" suffix), and any number or literal whose text holds a secret
  /// (replaced by the scrubbed text, a string). Returns true when anything changed.
  bool scrub_json(nlohmann::json& value) const;
  nlohmann::json scrubbed_json(nlohmann::json value) const {
    scrub_json(value);
    return value;
  }

 private:
  struct Needle {
    std::string text;
    std::vector<std::size_t> fail;  ///< KMP failure function.
  };
  void add_needle(std::string text);
  void choose_marker();
  /// One pass: every occurrence replaced; false when there was none.
  bool scrub_pass(std::string_view text, std::string& out) const;
  bool scrub_json_at(nlohmann::json& value, int depth) const;

  std::vector<std::string> secrets_;
  std::vector<std::string> urls_;
  std::vector<Needle> needles_;
  /// Some needle can occur in a JSON number's text (it is made of digits, '.', '-', '+', 'e', 'E').
  bool numeric_needle_ = false;
  std::string marker_{kRedacted};
};

}  // namespace ctxo::core
