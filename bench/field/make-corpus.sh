#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the field table's workspace: a small git project with non-ASCII source (CJK, emoji,
# astral characters, RTL), three commits on main, a tag and a branch. Fixed author, dates and
# content, so every run starts from the same tree and the same commit ids.
#   bash bench/field/make-corpus.sh DIR    (DIR must not exist, or be empty)
set -euo pipefail
dir="${1:?usage: make-corpus.sh DIR}"
mkdir -p "$dir"
[ -z "$(ls -A "$dir")" ] || { echo "make-corpus: $dir is not empty" >&2; exit 2; }
cd "$dir"
export GIT_AUTHOR_NAME="Field Corpus" GIT_AUTHOR_EMAIL="corpus@example.invalid"
export GIT_COMMITTER_NAME="Field Corpus" GIT_COMMITTER_EMAIL="corpus@example.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c init.defaultBranch=main -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
commit() { GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" g commit -q -m "$2"; }

g init -q .
mkdir -p src docs scripts data
cat > src/greet.ts <<'TS'
// 挨拶モジュール: greets in several scripts 👋
export interface Greeting {
  lang: string;
  text: string; // may hold astral characters such as 𝄞 or 😀
}

export const greetings: Greeting[] = [
  { lang: "ja", text: "こんにちは世界" },
  { lang: "zh", text: "你好，世界" },
  { lang: "emoji", text: "👋🌍 hello" },
  { lang: "music", text: "𝄞 clef" },
];

export function greet(name: string, lang = "ja"): string {
  const g = greetings.find((x) => x.lang === lang) ?? greetings[0];
  return `${g.text}, ${name}!`; // 😀 after the name
}
TS
cat > src/util.ts <<'TS'
import { greet } from "./greet";

/** 文字数を数える (counts UTF-16 code units, like JavaScript) */
export function width(s: string): number {
  return s.length;
}

export const banner = greet("世界") + " 🎉";
TS
cat > scripts/tally.py <<'PY'
"""集計スクリプト — tallies words, emoji included 🧮"""


def tally(text: str) -> dict:
    counts: dict = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


if __name__ == "__main__":
    print(tally("猫 犬 猫 🐈 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"))
PY
cat > README.md <<'MD'
# フィールド・コーパス (field corpus) 📚

A tiny project used by the field table of ctxo-conform. It mixes scripts on purpose:

- 日本語: こんにちは
- 中文: 你好
- emoji: 🚀 ✨ 👩‍💻
- astral: 𝄞 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🀄
- RTL: שלום עולם
MD
g add -A
commit "2026-01-01T10:00:00Z" "初期コミット: project skeleton 🌱"
g tag -a v0.1.0 -m "最初のリリース v0.1.0 🏷"

cat > docs/guide.md <<'MD'
# ガイド 🧭

Call `greet("名前")` from `src/greet.ts`. Line 3 of that file holds 𝄞, an astral character
that is two UTF-16 code units and four UTF-8 bytes.

| 言語 | 挨拶 |
|---|---|
| ja | こんにちは |
| zh | 你好 |
MD
printf '{"name": "コーパス", "tags": ["🚀", "𝄞", "中文"], "count": 3}\n' > data/sample.json
cat > src/legacy.js <<'JS'
// 古いコード: plain JavaScript for the linters 🧹
var unused = "未使用";
function add(a, b) {
  return a + b;
}
module.exports = { add };
JS
printf 'export default { preflight: true, include: ["./src/**/*.{js,ts}"], exclude: [], outdir: "styled-system" };\n' > panda.config.mjs
printf 'export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "warn", "no-var": "error" } }];\n' > eslint.config.mjs
# a task list in Task Master's layout (.taskmaster/tasks/tasks.json, tagged "master")
mkdir -p .taskmaster/tasks
cat > .taskmaster/tasks/tasks.json <<'JSON'
{"master": {"tasks": [
  {"id": 1, "title": "挨拶を整える 👋", "description": "Tidy greet() in src/greet.ts", "details": "Keep 𝄞 and emoji intact.", "testStrategy": "Run tally.py", "status": "done", "dependencies": [], "priority": "high", "subtasks": []},
  {"id": 2, "title": "ガイドを書く 📖", "description": "Write docs/guide.md", "details": "CJK table, astral example.", "testStrategy": "Read it", "status": "in-progress", "dependencies": [1], "priority": "medium",
   "subtasks": [{"id": 1, "title": "表を追加", "description": "Add the table", "details": "", "status": "done", "dependencies": []},
                {"id": 2, "title": "Explain 𝄞", "description": "UTF-16 vs UTF-8", "details": "", "status": "pending", "dependencies": [1]}]},
  {"id": 3, "title": "shout() のテスト 📣", "description": "Test shout()", "details": "", "testStrategy": "unit test", "status": "pending", "dependencies": [2], "priority": "low", "subtasks": []}
], "metadata": {"created": "2026-01-02T11:00:00.000Z", "updated": "2026-01-02T11:00:00.000Z", "description": "Tasks for master context"}}}
JSON
# an SQLite database and a one-page PDF, for the database and document servers (Python's
# standard library writes both; without python3 they are left out)
if command -v python3 >/dev/null 2>&1; then
  python3 - <<'PY'
import sqlite3
db = sqlite3.connect("data/field.db")
db.executescript("""
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, stars INTEGER DEFAULT 0);
CREATE TABLE tags (note_id INTEGER REFERENCES notes(id), tag TEXT);
CREATE INDEX tags_note ON tags(note_id);
""")
rows = [("挨拶", "こんにちは世界 👋", 3), ("音楽", "𝄞 clef and 🎵", 5), ("中文", "你好，世界", 1),
        ("emoji", "🚀✨👩‍💻", 4), ("plain", "hello world", 0)]
db.executemany("INSERT INTO notes(title, body, stars) VALUES (?, ?, ?)", rows)
db.executemany("INSERT INTO tags VALUES (?, ?)", [(1, "ja"), (1, "greeting"), (2, "music"), (3, "zh"), (4, "emoji")])
db.commit()
db.close()
# a one-page PDF with one line of ASCII text (the base-14 fonts hold no CJK)
objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>", None,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
text = b"BT /F1 12 Tf 20 100 Td (Field corpus: hello PDF) Tj ET"
objs[3] = b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream"
out = bytearray(b"%PDF-1.4\n")
offs = []
for i, o in enumerate(objs, 1):
    offs.append(len(out))
    out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
for o in offs:
    out += b"%010d 00000 n \n" % o
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
open("docs/hello.pdf", "wb").write(bytes(out))
PY
fi
g add -A
commit "2026-01-02T11:00:00Z" "docs: ガイドを追加 📖"

g branch feature/絵文字
cat >> src/util.ts <<'TS'

export function shout(s: string): string {
  return s.toUpperCase() + "!!! 📣";
}
TS
g add -A
commit "2026-01-03T12:00:00Z" "feat: shout() を追加 📣"
# the branch gets a commit of its own
g checkout -q feature/絵文字
printf '\n// ブランチだけの行 🌿\n' >> src/greet.ts
g add -A
commit "2026-01-04T13:00:00Z" "feature: branch-only line 🌿"
g checkout -q main
# an uncommitted change, as a working tree usually has one
printf '\n<!-- 未コミット ✏️ -->\n' >> README.md
