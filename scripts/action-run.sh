#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The run step of the GitHub Action (action.yml): builds the ctxo-conform command line from the
# action's inputs (INPUT_* variables), runs it, appends the Markdown summary to
# $GITHUB_STEP_SUMMARY, and sets the `exit-code` output. Exits with ctxo-conform's code.
# Usable outside GitHub too: every GITHUB_* variable is optional.
# The binary: $CTXO_CONFORM_BIN when set (a build from source), else the npm package through
# `npx -y ctxo-conform@VERSION`, VERSION being $INPUT_VERSION or this checkout's (CMakeLists.txt).
set -uo pipefail

if [ -n "${CTXO_CONFORM_BIN:-}" ]; then
  bin=("$CTXO_CONFORM_BIN")
else
  version="${INPUT_VERSION:-}"
  [ -n "$version" ] ||
    version="$(sed -n 's/^project(ctxo_conform VERSION \([0-9][0-9.]*\).*/\1/p' "$(dirname "$0")/../CMakeLists.txt")"
  [ -n "$version" ] || { echo "error: no ctxo-conform version: give the action's 'version' input" >&2; exit 2; }
  command -v npx >/dev/null || { echo "error: npx not found: set up Node.js 16+ (actions/setup-node) or use from-source: true" >&2; exit 2; }
  bin=(npx -y "ctxo-conform@$version")
fi
args=()
# Extra flags, split like a shell would (quotes work; no globbing). The inputs are the workflow
# author's own text, as trusted as a `run:` line.
if [ -n "${INPUT_ARGS:-}" ]; then
  set -f
  eval "extra=(${INPUT_ARGS})"
  set +f
  args+=("${extra[@]}")
fi
[ -n "${INPUT_JSON:-}" ] && args+=(--json "$INPUT_JSON")
[ -n "${INPUT_JUNIT:-}" ] && args+=(--junit "$INPUT_JUNIT")
[ -n "${INPUT_SARIF:-}" ] && args+=(--sarif "$INPUT_SARIF")
[ -n "${INPUT_HTML:-}" ] && args+=(--html "$INPUT_HTML")
summary_file=""
if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  summary_file="$(mktemp)"
  args+=(--markdown "$summary_file")
fi
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
  [ -n "${INPUT_SERVER_NAME:-}" ] && args+=(--server "$INPUT_SERVER_NAME")
  [ -n "${INPUT_SERVER:-}" ] && { echo "error: give either 'server' or 'config', not both" >&2; exit 2; }
elif [ -n "${INPUT_SERVER:-}" ]; then
  set -f
  eval "server=(${INPUT_SERVER})"
  set +f
  args+=(-- "${server[@]}")
else
  echo "error: the action needs 'server' (a command line) or 'config' (an mcpServers file)" >&2
  exit 2
fi

echo "${bin[*]} ${args[*]}"
"${bin[@]}" "${args[@]}"
code=$?
if [ -n "$summary_file" ]; then
  [ -s "$summary_file" ] && cat "$summary_file" >> "$GITHUB_STEP_SUMMARY"
  rm -f "$summary_file"
fi
[ -n "${GITHUB_OUTPUT:-}" ] && echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit "$code"
