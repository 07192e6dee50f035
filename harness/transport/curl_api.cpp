// SPDX-License-Identifier: MIT
#include "transport/curl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace ctxo::transport {

namespace {

/// The libraries tried, in order: $CTXO_LIBCURL alone when set.
std::vector<std::string> candidates() {
  if (const char* env = std::getenv("CTXO_LIBCURL"); env != nullptr && *env != '\0') return {env};
#ifdef __APPLE__
  return {"libcurl.4.dylib"};
#else
  return {"libcurl.so.4", "libcurl-gnutls.so.4"};
#endif
}

Result<const CurlApi*> load() {
  const std::vector<std::string> names = candidates();
  void* lib = nullptr;
  std::string name, why;
  for (const auto& n : names) {
    lib = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      name = n;
      break;
    }
    if (why.empty()) why = ::dlerror();
  }
  if (lib == nullptr)
    return make_error(errc::kUsage,
                      "--url needs libcurl, which could not be loaded (" + why +
                          "): install it (Debian/Ubuntu: apt-get install libcurl4; Fedora: dnf install libcurl)" +
                          (names.size() == 1 ? std::string(", or correct CTXO_LIBCURL") : std::string()) +
                          "; stdio servers need no libcurl");
  static CurlApi api;  // filled once: load() runs once (curl_api)
#define CTXO_CURL_LOAD(fn)                                                                                      \
  api.fn = reinterpret_cast<decltype(api.fn)>(::dlsym(lib, "curl_" #fn));                                        \
  if (api.fn == nullptr)                                                                                         \
    return make_error(errc::kUsage, "--url needs libcurl, but " + name + " has no curl_" #fn                      \
                                    ": install libcurl 7.x or later (Debian/Ubuntu: apt-get install libcurl4)");
  CTXO_CURL_FUNCTIONS(CTXO_CURL_LOAD)
#undef CTXO_CURL_LOAD
  api.global_init(CURL_GLOBAL_DEFAULT);
  return &api;
}

}  // namespace

const Result<const CurlApi*>& curl_api() {
  static const Result<const CurlApi*> loaded = load();
  return loaded;
}

}  // namespace ctxo::transport
