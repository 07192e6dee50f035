# SPDX-License-Identifier: MIT
# Fuzz targets of ctxo::transport: the newline Framer (no processes are spawned).
ctxo_add_fuzzer(NAME fuzz_framing SOURCES fuzz_framing.cpp LIBS ctxo::transport)
# The SSE reader of the Streamable HTTP transport, against a plain whole-buffer reading.
ctxo_add_fuzzer(NAME fuzz_sse SOURCES fuzz_sse.cpp LIBS ctxo::transport)
# The Streamable HTTP transport's response headers (status, media type, Mcp-Session-Id, the values
# diagnoses show), against a plain reading that keeps every value whole.
ctxo_add_fuzzer(NAME fuzz_http_headers SOURCES fuzz_http_headers.cpp LIBS ctxo::transport)
