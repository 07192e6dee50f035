# SPDX-License-Identifier: MIT
# Fuzz targets of ctxo::transport: the newline Framer (no processes are spawned).
ctxo_add_fuzzer(NAME fuzz_framing SOURCES fuzz_framing.cpp LIBS ctxo::transport)
