// SPDX-License-Identifier: MIT
#include "cli/config.h"

#include <filesystem>

#include "profile/profile.h"

namespace ctxo::cli {

using nlohmann::json;

namespace {

// Options a config file may not set: they choose the file, or end the program at once.
bool reserved(const std::string& key) {
  return key == "config" || key == "server" || key == "help" || key == "version" || key == "list-invariants";
}

Result<std::string> scalar_text(const json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float()) return v.dump();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  return make_error("usage", where + " must be a string, number or boolean, not " + std::string(v.type_name()));
}

}  // namespace

Result<ServerConfig> load_server_config(const std::string& path, const std::string& name) {
  auto read = profile::read_json_file(path, /*allow_comments=*/true);
  if (!read) return make_error("usage", "--config: " + read.error().message);
  const json& doc = *read;
  if (!doc.is_object() || !doc.contains("mcpServers") || !doc["mcpServers"].is_object())
    return make_error("usage", "--config file '" + path + "' has no \"mcpServers\" object");
  const json& servers = doc["mcpServers"];
  std::string known;
  for (const auto& [k, _] : servers.items()) known += (known.empty() ? "" : ", ") + k;
  std::string chosen = name;
  if (chosen.empty()) {
    if (servers.size() != 1)
      return make_error("usage", "--config file '" + path + "' lists " + std::to_string(servers.size()) +
                                     " servers; pick one with --server NAME (" + (known.empty() ? "none" : known) + ")");
    chosen = servers.begin().key();
  }
  if (!servers.contains(chosen))
    return make_error("usage", "no server '" + chosen + "' in --config file '" + path + "' (it lists: " +
                                   (known.empty() ? "none" : known) + ")");
  const json& e = servers[chosen];
  const std::string where = "--config '" + path + "', server '" + chosen + "'";
  if (!e.is_object()) return make_error("usage", where + ": the entry is not an object");
  if (e.contains("type") && !e["type"].is_string()) return make_error("usage", where + ": \"type\" must be a string");
  const std::string type = e.value("type", e.contains("url") ? "http" : "stdio");
  ServerConfig sc;
  sc.name = chosen;
  sc.others = servers.size() - 1;
  if (type == "http" || type == "streamable-http" || type == "streamableHttp") {
    if (!e.contains("url") || !e["url"].is_string() || e["url"].get<std::string>().empty())
      return make_error("usage", where + ": an HTTP server needs a \"url\" string");
    sc.url = e["url"].get<std::string>();
    if (e.contains("headers")) {
      if (!e["headers"].is_object()) return make_error("usage", where + ": \"headers\" must be an object of strings");
      for (const auto& [k, v] : e["headers"].items()) {
        auto text = scalar_text(v, where + ": header " + k);
        if (!text.ok()) return text.error();
        sc.headers.emplace_back(k, *text);
      }
    }
  } else if (type != "stdio") {
    return make_error("usage", where + ": a \"" + type +
                                   "\" server cannot be tested: ctxo-conform speaks stdio and Streamable HTTP (\"type\": "
                                   "\"http\"); the HTTP+SSE transport of 2024-11-05 is deprecated");
  } else if (e.contains("url")) {
    return make_error("usage", where + ": \"type\": \"stdio\" with a \"url\"; use \"type\": \"http\" for a Streamable HTTP server");
  }
  if (sc.url.empty() && (!e.contains("command") || !e["command"].is_string() || e["command"].get<std::string>().empty()))
    return make_error("usage", where + ": needs a \"command\" string");
  if (e.contains("command") && (!e["command"].is_string() || e["command"].get<std::string>().empty()))
    return make_error("usage", where + ": \"command\" must be a non-empty string");
  if (e.contains("command")) sc.command.push_back(e["command"].get<std::string>());
  if (e.contains("args")) {
    if (sc.command.empty()) return make_error("usage", where + ": \"args\" without a \"command\"");
    if (!e["args"].is_array()) return make_error("usage", where + ": \"args\" must be an array of strings");
    for (const auto& a : e["args"]) {
      if (!a.is_string()) return make_error("usage", where + ": \"args\" must be an array of strings");
      sc.command.push_back(a.get<std::string>());
    }
  }
  if (e.contains("env")) {
    if (!e["env"].is_object()) return make_error("usage", where + ": \"env\" must be an object of strings");
    for (const auto& [k, v] : e["env"].items()) {
      auto text = scalar_text(v, where + ": env " + k);
      if (!text.ok()) return text.error();
      sc.env[k] = *text;
    }
  }
  if (e.contains("cwd")) {
    if (!e["cwd"].is_string()) return make_error("usage", where + ": \"cwd\" must be a string");
    std::filesystem::path cwd = e["cwd"].get<std::string>();
    if (cwd.is_relative()) cwd = std::filesystem::absolute(path).parent_path() / cwd;
    sc.cwd = cwd.lexically_normal().string();
  }
  const json* top = doc.contains("ctxo-conform") ? &doc["ctxo-conform"] : nullptr;
  const json* own = e.contains("ctxo-conform") ? &e["ctxo-conform"] : nullptr;
  for (const json* section : {top, own}) {
    if (!section) continue;
    if (!section->is_object()) return make_error("usage", "--config '" + path + "': \"ctxo-conform\" must be an object");
    for (const auto& [k, v] : section->items()) sc.options[k] = v;
  }
  return sc;
}

Result<void> apply_config_options(CLI::App& app, const json& options, const std::string& origin) {
  for (const auto& [key, value] : options.items()) {
    const std::string where = origin + ": option \"" + key + "\"";
    CLI::Option* opt = reserved(key) || key.rfind('-', 0) == 0 ? nullptr : app.get_option_no_throw("--" + key);
    if (!opt) return make_error("usage", where + " is not a ctxo-conform option (keys are long option names without --)");
    if (opt->count() > 0) continue;  // given on the command line: the flag wins
    if (opt->get_type_size() == 0) {  // a flag
      if (!value.is_boolean()) return make_error("usage", where + " is a flag: true or false");
      if (!value.get<bool>()) continue;
      opt->add_result(std::string("1"));
    } else if (value.is_array()) {
      std::vector<std::string> items;
      for (const auto& v : value) {
        auto t = scalar_text(v, where);
        if (!t.ok()) return t.error();
        items.push_back(*t);
      }
      if (items.empty()) continue;
      if (opt->get_items_expected_max() < 2) {
        // A single-valued option given as a list: join it (e.g. "limits": [512, 4096]).
        std::string joined;
        for (const auto& i : items) joined += (joined.empty() ? "" : ",") + i;
        items = {joined};
      }
      opt->add_result(items);
    } else {
      auto t = scalar_text(value, where);
      if (!t.ok()) return t.error();
      opt->add_result(*t);
    }
    try {
      opt->run_callback();
    } catch (const CLI::Error& err) {
      return make_error("usage", where + ": " + err.what());
    }
  }
  return {};
}

}  // namespace ctxo::cli
