// SPDX-License-Identifier: MIT
// Client: the MCP operations built on request(): the handshake (server/discover probe, then
// initialize with protocol version negotiation), the list walk (tools/list and the other lists)
// with its paging, and tools/call.
#include "mcp/client.h"

#include <algorithm>
#include <set>

#include "core/interrupt.h"
#include "core/text.h"

namespace ctxo::mcp {

Result<ServerInfo> Client::handshake(const std::string& forced, std::vector<Reply>* attempts) {
  // Every request of the handshake waits ClientOptions::handshake_timeout; `timeout` again after.
  struct Restore {
    std::chrono::milliseconds& timeout;
    std::chrono::milliseconds saved;
    ~Restore() { timeout = saved; }
  } restore{options_.timeout, options_.timeout};
  options_.timeout = options_.handshake_timeout.value_or(options_.timeout);
  auto keep = [&](const Reply& r) {
    if (attempts) attempts->push_back(r);
  };
  auto describe = [&](const Reply& r, const char* what) -> std::string {
    switch (r.kind) {
      case Reply::Kind::kTimeout:
        if (r.oversize) return std::string("the answer to ") + what + " was over the maximum message size";
        return std::string("no answer to ") + what + " within " + std::to_string(options_.timeout.count()) + " ms";
      case Reply::Kind::kClosed: {
        auto st = transport_.exit_status();
        return std::string("the server closed its stdout during ") + what +
               (st ? " (" + st->describe() + ")" : std::string());
      }
      case Reply::Kind::kError:
        return std::string(what) + " was answered with an error: " + excerpt(r.error.dump(), 300);
      default:
        return std::string(what) + " failed";
    }
  };

  // forced: "" = find out; "legacy" = negotiate among kLegacyVersions only (no probe);
  // a version = that version only.
  const bool specific = !forced.empty() && forced != "legacy";
  const bool want_modern = forced.empty() || forced == kModernVersion;
  if (want_modern) {
    era_ = "modern";
    auto saved = options_.timeout;
    if (forced.empty()) options_.timeout = std::min(options_.timeout, std::chrono::milliseconds(5000));
    Reply r = request("server/discover", json::object());
    options_.timeout = saved;
    keep(r);
    if (r.kind == Reply::Kind::kResult && r.result.is_object() && r.result.contains("supportedVersions") &&
        r.result["supportedVersions"].is_array() &&
        std::find(r.result["supportedVersions"].begin(), r.result["supportedVersions"].end(), kModernVersion) !=
            r.result["supportedVersions"].end()) {
      ServerInfo info;
      info.era = "modern";
      info.protocol_version = protocol_version_ = kModernVersion;
      info.init_result = r.result;
      info.init_request = r.request;
      capabilities_ = r.result.value("capabilities", json());
      const json* si = nullptr;
      if (r.result.contains("serverInfo")) si = &r.result["serverInfo"];
      else if (r.result.contains("_meta") && r.result["_meta"].is_object() &&
               r.result["_meta"].contains("io.modelcontextprotocol/serverInfo"))
        si = &r.result["_meta"]["io.modelcontextprotocol/serverInfo"];
      if (si && si->is_object()) {
        info.name = si->value("name", "");
        info.version = si->value("version", "");
      }
      prelude_.clear();
      return info;
    }
    era_ = "legacy";
    if (specific) return make_error("init", describe(r, "server/discover") + " (forced --protocol " + forced + ")");
    if (r.kind == Reply::Kind::kClosed) return make_error("init-probe", describe(r, "the server/discover probe"));
  }

  std::vector<std::string> versions = kLegacyVersions;
  if (specific) versions = {forced};
  std::string last_problem;
  std::set<std::string> tried;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::string& v = versions[i];
    if (!tried.insert(v).second) continue;
    json params = {{"protocolVersion", v},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
    Reply r = request("initialize", params);
    keep(r);
    if (r.kind == Reply::Kind::kResult) {
      std::string answered;
      if (r.result.is_object() && r.result.contains("protocolVersion") && r.result["protocolVersion"].is_string())
        answered = r.result["protocolVersion"].get<std::string>();
      if (specific && answered != forced)
        return make_error("init", "the server answered protocol version '" + answered + "' to the forced --protocol " +
                                      forced);
      ServerInfo info;
      info.era = "legacy";
      bool known = std::find(kLegacyVersions.begin(), kLegacyVersions.end(), answered) != kLegacyVersions.end();
      info.protocol_version = protocol_version_ = known ? answered : v;
      info.init_result = r.result;
      info.init_request = r.request;
      capabilities_ = r.result.is_object() ? r.result.value("capabilities", json()) : json();
      if (r.result.is_object() && r.result.contains("serverInfo") && r.result["serverInfo"].is_object()) {
        info.name = r.result["serverInfo"].value("name", "");
        info.version = r.result["serverInfo"].value("version", "");
      }
      json initialized = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
      send_json(initialized);
      prelude_ = {r.request.dump(), initialized.dump()};
      return info;
    }
    last_problem = describe(r, "initialize");
    if (r.kind != Reply::Kind::kError) break;  // timeout or exit: stepping down will not help
    // An error may name the versions the server supports (spec example: data.supported).
    if (r.error.is_object() && r.error.contains("data") && r.error["data"].is_object() &&
        r.error["data"].contains("supported") && r.error["data"]["supported"].is_array() && !specific) {
      for (const auto& s : r.error["data"]["supported"]) {
        if (s.is_string() && std::find(kLegacyVersions.begin(), kLegacyVersions.end(), s.get<std::string>()) !=
                                 kLegacyVersions.end()) {
          versions.insert(versions.begin() + static_cast<long>(i) + 1, s.get<std::string>());
          break;
        }
      }
    }
  }
  return make_error("init", last_problem);
}

std::string Client::item_identity(const std::string& key, const json& item) {
  const char* field = key == "resources" ? "uri" : key == "resourceTemplates" ? "uriTemplate" : "name";
  if (!item.is_object()) return "";
  auto it = item.find(field);
  return it != item.end() && it->is_string() ? it->get<std::string>() : "";
}

Client::Listing Client::list(const std::string& method, const std::string& key, const ListBounds& bounds) {
  Listing out;
  out.method = method;
  out.key = key;
  std::set<std::string> seen, items;
  json cursor;
  for (std::size_t page = 0; page < bounds.max_pages; ++page) {
    core::stop_if_interrupted();  // a listing that does not end is where a signal may find the run
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    out.pages.push_back(request(method, params));  // moved in: a page can be megabytes
    Reply& r = out.pages.back();
    if (r.kind != Reply::Kind::kResult || !r.result.is_object()) {
      out.failed = true;
      return out;
    }
    bool repeats = false;
    if (auto list = r.result.find(key); list != r.result.end() && list->is_array()) {
      // A later page that lists nothing new is a walk that does not advance, whatever its cursor
      // says: following it further would only fetch the same items again.
      std::size_t fresh = 0;
      for (const auto& item : *list) {
        std::string id = item_identity(key, item);
        if (id.empty() || items.insert(std::move(id)).second) ++fresh;
      }
      repeats = page > 0 && !list->empty() && fresh == 0;
      const std::size_t room = bounds.max_tools - std::min(bounds.max_tools, out.tool_count);
      if (list->size() > room) {
        out.dropped += list->size() - room;
        list->erase(list->begin() + static_cast<std::ptrdiff_t>(room), list->end());
        r.raw.clear();  // the page as received is more than is kept; its text is not held either
      }
      out.tool_count += list->size();
    }
    auto next_it = r.result.find("nextCursor");
    if (next_it == r.result.end() || !next_it->is_string()) return out;  // its repeats are the checks' to say
    out.paginated = true;
    const std::string& next = next_it->get_ref<const std::string&>();
    if (next.size() > bounds.max_cursor_bytes) {
      out.long_cursor = next.size();
      return out;
    }
    // An empty string is a cursor like any other (pagination: only a missing nextCursor ends it).
    if (cursor.is_string() && cursor.get_ref<const std::string&>() == next) {
      out.cursor_stuck = true;
      return out;
    }
    if (!seen.insert(next).second) {
      out.cursor_loop = true;
      return out;
    }
    if (repeats) {  // a new cursor, but the page before it brought nothing new
      out.repeated_page = true;
      return out;
    }
    if (bounds.deadline && std::chrono::steady_clock::now() >= *bounds.deadline) {
      out.out_of_time = true;
      return out;
    }
    if (bounds.out_of_memory && bounds.out_of_memory()) {
      out.out_of_memory = true;
      return out;
    }
    cursor = next;
  }
  out.page_limit = true;
  return out;
}

Client::ToolsListing Client::list_tools(const ListBounds& bounds) { return list("tools/list", "tools", bounds); }

Reply Client::list_with_cursor(const std::string& method, const std::string& cursor) {
  return request(method, json{{"cursor", cursor}});
}

Client::ToolsListing Client::list_tools() { return list_tools(ListBounds{}); }

std::vector<json> Client::ToolsListing::take_tools() {
  std::vector<json> tools;
  tools.reserve(tool_count);
  for (auto& page : pages) {
    if (page.kind != Reply::Kind::kResult || !page.result.is_object()) continue;
    auto it = page.result.find(key);
    if (it == page.result.end() || !it->is_array()) continue;
    for (auto& t : *it) tools.push_back(std::move(t));
  }
  return tools;
}

Reply Client::call_tool(const std::string& name, const json& arguments, bool confirm_hang) {
  json params = {{"name", name}};
  if (!arguments.is_null()) params["arguments"] = arguments;
  return request("tools/call", params, confirm_hang);
}

}  // namespace ctxo::mcp
