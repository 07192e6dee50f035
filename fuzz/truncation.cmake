# SPDX-License-Identifier: MIT
# Fuzz targets of the truncation core (harness/truncation): invariants, exact-vs-naive
# differential, Unicode position mapping. Seed corpora live in corpus/<target>/.
ctxo_add_fuzzer(NAME fuzz_truncation SOURCES fuzz_truncation.cpp LIBS ctxo::truncation)
ctxo_add_fuzzer(NAME fuzz_truncation_diff SOURCES fuzz_truncation_diff.cpp LIBS ctxo::truncation)
ctxo_add_fuzzer(NAME fuzz_unicode SOURCES fuzz_unicode.cpp LIBS ctxo::truncation)
