// SPDX-License-Identifier: MIT
// The libcurl functions the Streamable HTTP transport calls (http_curl.cpp), loaded at run time
// with dlopen rather than linked: the binary starts, and checks stdio servers, on a machine without
// libcurl (a container, the npm package on a bare image); only --url needs it, and says what to
// install when it is missing. The types and constants still come from <curl/curl.h>.
#pragma once

#include <curl/curl.h>

#include "core/result.h"

namespace ctxo::transport {

// Each function as curl_<name>: one list, for the table and for its loading.
#define CTXO_CURL_FUNCTIONS(X) \
  X(global_init)               \
  X(easy_init)                 \
  X(easy_setopt)               \
  X(easy_perform)              \
  X(easy_getinfo)              \
  X(easy_cleanup)              \
  X(easy_strerror)             \
  X(slist_append)              \
  X(slist_free_all)            \
  X(share_init)                \
  X(share_setopt)              \
  X(share_cleanup)

struct CurlApi {
#define CTXO_CURL_POINTER(name) decltype(&::curl_##name) name = nullptr;
  CTXO_CURL_FUNCTIONS(CTXO_CURL_POINTER)
#undef CTXO_CURL_POINTER
};

/// libcurl, loaded once (curl_global_init done): the library $CTXO_LIBCURL names when set, else
/// libcurl.so.4, else libcurl-gnutls.so.4 (Debian's other build of the same ABI, which git pulls in).
/// Error "usage" when none loads or one lacks a function, naming the package to install.
const Result<const CurlApi*>& curl_api();

}  // namespace ctxo::transport
