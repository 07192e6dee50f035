# SPDX-License-Identifier: MIT
# fuzz_profile_loader: arbitrary bytes as a profile file and as a JSON Schema; the loader,
# SchemaValidator and detection never crash, throw or hang. Seeds: corpus/fuzz_profile_loader/.
ctxo_add_fuzzer(NAME fuzz_profile_loader SOURCES fuzz_profile_loader.cpp LIBS ctxo::profile)
