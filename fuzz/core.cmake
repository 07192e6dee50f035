# SPDX-License-Identifier: MIT
# fuzz_redact: the secret scrubber (core::Redactor) with a secret planted at every byte position
# of arbitrary text and JSON. Seeds: corpus/fuzz_redact/.
ctxo_add_fuzzer(NAME fuzz_redact SOURCES fuzz_redact.cpp LIBS ctxo::core)
