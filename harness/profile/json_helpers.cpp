// SPDX-License-Identifier: MIT
// The JSON helpers declared beside SchemaValidator: parsing a JSON text with a depth limit,
// json_depth, and JSON Pointers (RFC 6901) resolved and escaped. No valijson here.
#include "profile/schema_validator.h"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctxo::profile {
namespace {

using nlohmann::json;

}  // namespace

Result<json> parse_json_text(std::string_view text, bool allow_comments) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), nullptr, true, allow_comments);
  } catch (const json::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> drop the tag.
    if (auto pos = what.find("] "); pos != std::string::npos && what.front() == '[') what.erase(0, pos + 2);
    return make_error("parse", what);
  } catch (const std::exception& e) {
    return make_error("parse", e.what());
  }
  if (json_depth(doc) > kMaxJsonDepth)
    return make_error("parse", "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  return doc;
}

int json_depth(const json& doc) {
  int max_depth = 0;
  std::vector<std::pair<const json*, int>> stack{{&doc, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    max_depth = std::max(max_depth, depth + 1);
    for (const auto& child : *node) stack.emplace_back(&child, depth + 1);
  }
  return max_depth;
}

const json* resolve_pointer(const json& doc, std::string_view pointer) {
  const json* node = &doc;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    if (pointer[pos] != '/') return nullptr;
    std::size_t next = pointer.find('/', pos + 1);
    if (next == std::string_view::npos) next = pointer.size();
    std::string token;
    for (std::size_t i = pos + 1; i < next; ++i) {
      if (pointer[i] != '~') {
        token += pointer[i];
      } else if (i + 1 < next && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        return nullptr;
      }
    }
    pos = next;
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) return nullptr;
      std::size_t index = 0;
      for (char c : token) {
        if (c < '0' || c > '9') return nullptr;
        index = index * 10 + static_cast<std::size_t>(c - '0');
      }
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
  }
  return node;
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace ctxo::profile
