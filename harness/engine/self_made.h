// SPDX-License-Identifier: MIT
// Self-made data (coverage): an answer about what the run itself wrote is not the server's data.
// A tool that answers only about a repository the run initialised, or an entity it created, reached
// nothing the server had; counted apart (Coverage::self_made), it does not make the tool count as
// exercised.
//
// The rule, per server session: a string the run gave a tool that writes (a valid call, answered
// without an error) is made up when the run had not seen it before (in no answer, not a workspace
// value: gen::Harvest::knows), it is not in that tool's inputSchema (an enum value, an example, a
// default) and it is 3 to 512 bytes long. A later call that reached data is self-made when it
// carries such a string anywhere in its arguments and no string the run knows from elsewhere (a
// value an answer or the workspace gave that the run did not make up): `read_entity {name: made}`
// is self-made, `search {query: made, path: "src/app.ts"}` reads a real file and is not.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::engine::detail {

class MadeUp {
 public:
  static constexpr std::size_t kMax = 4096;  ///< Strings kept at most (first made first).
  /// The strings of `args` (a valid call to a tool that writes, about to be sent) the run made up.
  /// `known`: the run has seen the string (asked before the call: its own answer may echo them).
  std::vector<std::string> fresh(const nlohmann::json& args, const nlohmann::json& input_schema,
                                 const std::function<bool(const std::string&)>& known) const;
  /// The call carrying `strings` (fresh()'s) was answered without an error: they are remembered.
  void wrote(const std::vector<std::string>& strings);
  /// True when `args` carry a string the run made up and gave a tool that writes, and no string
  /// `known` says the run has seen that it did not make up.
  bool carries(const nlohmann::json& args, const std::function<bool(const std::string&)>& known) const;
  std::size_t size() const { return made_.size(); }

 private:
  std::set<std::string> made_;
};

}  // namespace ctxo::engine::detail
