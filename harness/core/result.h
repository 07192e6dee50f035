// SPDX-License-Identifier: MIT
// Result<T>: a value or an Error, the only way fallible public functions in ctxo report failure.
// Not for findings: a server breaking a rule is a Finding (finding.h), never an Error.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace ctxo {

/// The Error codes a run's report carries (its "error"."code"), one name each.
namespace errc {
inline constexpr const char* kUsage = "usage";    ///< A bad flag, configuration, case or profile (exit 2).
inline constexpr const char* kIo = "io";          ///< A file we could not read or write (exit 2).
inline constexpr const char* kSpawn = "spawn";    ///< The server command could not be started (exit 3).
inline constexpr const char* kInit = "init";      ///< The server did not complete the handshake (exit 3).
inline constexpr const char* kRefused = "refused";  ///< The server refused us as a client after the handshake (HTTP 401/403, exit 3).
inline constexpr const char* kParse = "parse";    ///< A transcript or report that is not what it should be.
inline constexpr const char* kConfig = "config";  ///< The harness's own files (schemas) are missing.
}  // namespace errc

/// Why the harness itself could not do something (bad input, I/O failure, unparsable schema).
struct Error {
  std::string code;     ///< Stable, machine-matchable: "spawn", "io", "timeout", "parse", "usage", ...
  std::string message;  ///< One line a person can act on.
};

/// A value of T, or an Error. Cheap to move; check ok() before value().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}         // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation with no value.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(std::string code, std::string message) {
  return Error{std::move(code), std::move(message)};
}

}  // namespace ctxo
