// SPDX-License-Identifier: MIT
#include "engine/self_made.h"

#include "gen/prose.h"

namespace ctxo::engine::detail {

namespace {
constexpr std::size_t kShortest = 3, kLongest = 512;
}  // namespace

std::vector<std::string> MadeUp::fresh(const nlohmann::json& args, const nlohmann::json& input_schema,
                                       const std::function<bool(const std::string&)>& known) const {
  std::vector<std::string> out;
  if (made_.size() >= kMax || !args.is_object() || args.empty()) return out;
  std::string schema_text;  // made only when a candidate needs it
  for (std::string& s : gen::argument_strings(args)) {
    if (s.size() < kShortest || s.size() > kLongest || made_.count(s) || known(s)) continue;
    if (schema_text.empty()) schema_text = input_schema.dump();
    if (schema_text.find(nlohmann::json(s).dump()) != std::string::npos) continue;  // the schema's own value
    out.push_back(std::move(s));
  }
  return out;
}

void MadeUp::wrote(const std::vector<std::string>& strings) {
  for (const auto& s : strings) {
    if (made_.size() >= kMax) return;
    made_.insert(s);
  }
}

bool MadeUp::carries(const nlohmann::json& args, const std::function<bool(const std::string&)>& known) const {
  if (made_.empty() || !args.is_structured()) return false;
  bool made = false;
  for (const std::string& s : gen::argument_strings(args)) {
    if (made_.count(s)) made = true;
    else if (s.size() >= kShortest && known(s)) return false;  // a real value: the call reads the server's data
  }
  return made;
}

}  // namespace ctxo::engine::detail
