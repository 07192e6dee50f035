# SPDX-License-Identifier: MIT
# Fuzz targets of what handles a server's input beyond framing (issue 14): the envelope checks
# (an answer in, findings out) and schema compilation + generation (an inputSchema in, calls
# out). Seeds: corpus/fuzz_envelope_checks/ (the envelope corpus, hostile answers) and
# corpus/fuzz_schema_gen/ (the real tool schemas of corpus/schemas/, hostile schemas).
ctxo_add_fuzzer(NAME fuzz_envelope_checks SOURCES fuzz_envelope_checks.cpp LIBS ctxo::checks ctxo::mcp ctxo::profile)
ctxo_add_fuzzer(NAME fuzz_schema_gen SOURCES fuzz_schema_gen.cpp LIBS ctxo::gen ctxo::profile)
# The generic reading of answers no profile matched (issue 29): readings, list facts, TR-HINT,
# TR-COUNT, TR-RESUME across pages, in-band failures and positions against a small workspace.
# Seeds: corpus/fuzz_generic/ (the dialects real servers answer in).
ctxo_add_fuzzer(NAME fuzz_generic SOURCES fuzz_generic.cpp LIBS ctxo::checks ctxo::mcp ctxo::profile)
