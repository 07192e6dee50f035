#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks that the documentation agrees with the binary and with itself. Exits 1, with one line
# per problem, when:
# - flags: an option of `ctxo-conform --help` (a run), `check --help`, `replay --help` or
#   `merge --help` is missing from its section of docs/reference/flags.md (a run's: the rows of
#   its table, `| `--flag ...`; the others: the code spans opening their list items,
#   `- `--flag ...`, `--other ...`: ...`), the section names an option its command does not
#   have, or any `--flag` written anywhere in flags.md is an option of no command;
# - invariants: an id `--list-invariants` prints is not in docs/reference/invariants.md, or that
#   page names (in backticks) an id the binary does not know;
# - links: a relative link of README.md or docs/**/*.md leads to no file, or its #anchor to no
#   heading of the Markdown file it names; a page under docs/ cannot be reached from README.md by
#   following links; README.md is 250 lines or more.
#   scripts/check-docs.py ROOT BINARY
import os
import re
import subprocess
import sys
from urllib.parse import unquote

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
COMMANDS = ["run", "check", "replay", "merge"]
README_MAX_LINES = 250


def problem(msgs, text):
    msgs.append(text)


def help_text(binary, command):
    argv = [binary, "--help"] if command == "run" else [binary, command, "--help"]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit("check-docs: `%s` exited %d:\n%s" % (" ".join(argv), r.returncode, r.stdout))
    return r.stdout


def help_options(text):
    """The long options of the help's Options: section (`  -j,--jobs N ...`, `  --json F ...`)."""
    opts, inside = set(), False
    for line in text.splitlines():
        if line.startswith("Options:"):
            inside = True
            continue
        if inside:
            if line and not line.startswith(" "):
                break
            m = re.match(r"\s+(?:-[a-zA-Z],)?(--[a-z][a-z0-9-]*)", line)
            if m:
                opts.add(m.group(1))
    return opts


def strip_code_blocks(text):
    """The text with fenced blocks blanked (line count kept), for link and heading scans."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
        elif m:
            fence = m.group(1)
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def check_flags(root, binary, msgs):
    path = os.path.join(root, "docs", "reference", "flags.md")
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    helps = {c: help_text(binary, c) for c in COMMANDS}
    options = {c: help_options(t) for c, t in helps.items()}
    for c, t in helps.items():
        if not options[c]:
            problem(msgs, "flags: found no Options: section in `%s --help`" % ("ctxo-conform" if c == "run" else "ctxo-conform " + c))
    every = set().union(*options.values())
    # Flags named in the help texts' prose (e.g. --list-invariants in an epilog) must exist too.
    for c, t in helps.items():
        for f in set(FLAG.findall(t)) - every:
            problem(msgs, "flags: `%s --help` mentions %s, an option of no command" % (c, f))
    # Sections: "## ctxo-conform (a run)", "## ctxo-conform check", ...
    sections, current = {}, None
    for line in doc.splitlines():
        m = re.match(r"##\s+`?ctxo-conform(?:\s+(check|replay|merge))?\b", line)
        if m:
            current = m.group(1) or "run"
            sections[current] = []
        elif line.startswith("## "):
            current = None
        elif current:
            sections[current].append(line)
    for c in COMMANDS:
        if c not in sections:
            problem(msgs, "flags: %s has no section `## ctxo-conform%s`" % (os.path.relpath(path, root), "" if c == "run" else " " + c))
            continue
        # A run's: the first cell of its table's rows. The others': the code spans that open a
        # list item ("- `--json F`, `--junit F`: ...").
        row = re.compile(r"\| `(--[a-z][a-z0-9-]*)" if c == "run" else r"[-*] ((?:`--[^`]*`(?:,\s*)?)+)")
        listed = set()
        for line in sections[c]:
            m = row.match(line)
            if m:
                listed.update(FLAG.findall(m.group(1)))
        name = "ctxo-conform" if c == "run" else "ctxo-conform " + c
        for f in sorted(options[c] - listed - {"--help"}):
            problem(msgs, "flags: %s is in `%s --help` but not in the %s section of docs/reference/flags.md" % (f, name, name))
        for f in sorted(listed - options[c]):
            problem(msgs, "flags: docs/reference/flags.md lists %s under %s, which `%s --help` does not have" % (f, name, name))
    for f in sorted(set(FLAG.findall(doc)) - every):
        problem(msgs, "flags: docs/reference/flags.md names %s, an option of no command" % f)
    return sum(len(o) for o in options.values())


def check_invariants(root, binary, msgs):
    r = subprocess.run([binary, "--list-invariants"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    ids = []
    for line in r.stdout.splitlines()[1:]:
        if not line.strip():
            break
        ids.append(line.split()[0])
    if r.returncode != 0 or not ids:
        sys.exit("check-docs: `--list-invariants` exited %d with no ids:\n%s" % (r.returncode, r.stdout))
    path = os.path.join(root, "docs", "reference", "invariants.md")
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    named = set(re.findall(r"`((?:T|P|E|TR|B|POS|H)-[A-Z0-9]+(?:-[A-Z0-9]+)*)`", doc))
    for i in ids:
        if i not in named:
            problem(msgs, "invariants: %s (--list-invariants) is not named in docs/reference/invariants.md" % i)
    for i in sorted(named - set(ids)):
        problem(msgs, "invariants: docs/reference/invariants.md names %s, which --list-invariants does not list" % i)
    return len(ids)


def slug(heading, seen):
    """GitHub's anchor for a heading: formatting dropped, lower case, punctuation out, spaces '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    s = text.replace(" ", "-")
    n = seen.get(s, 0)
    seen[s] = n + 1
    return s if n == 0 else "%s-%d" % (s, n)


def anchors_of(path, cache):
    if path not in cache:
        with open(path, encoding="utf-8") as fh:
            text = strip_code_blocks(fh.read())
        seen, found = {}, set()
        for line in text.splitlines():
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                found.add(slug(m.group(1), seen))
        found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
        cache[path] = found
    return cache[path]


def links_of(text):
    """(line, target) of every inline Markdown link outside code."""
    text = strip_code_blocks(text)
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        line = re.sub(r"(`+)(.+?)\1", "", line)  # code spans
        for m in re.finditer(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", line):
            out.append((n, m.group(1)))
    return out


def check_links(root, msgs):
    pages = [os.path.join(root, "README.md")]
    for base, subdirs, files in os.walk(os.path.join(root, "docs")):
        subdirs.sort()
        pages += [os.path.join(base, f) for f in sorted(files) if f.endswith(".md")]
    cache, graph, count = {}, {}, 0
    for page in pages:
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        graph[page] = set()
        rel = os.path.relpath(page, root)
        for n, target in links_of(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto:
            count += 1
            file_part, _, anchor = target.partition("#")
            dest = page if not file_part else os.path.normpath(os.path.join(os.path.dirname(page), unquote(file_part)))
            if not os.path.exists(dest):
                problem(msgs, "links: %s:%d: %s leads to no file" % (rel, n, target))
                continue
            if not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep):
                problem(msgs, "links: %s:%d: %s leads out of the repository" % (rel, n, target))
                continue
            if dest.endswith(".md"):
                graph[page].add(dest)
                if anchor and unquote(anchor) not in anchors_of(dest, cache):
                    problem(msgs, "links: %s:%d: %s: %s has no heading with the anchor #%s"
                            % (rel, n, target, os.path.relpath(dest, root), anchor))
    # Every page under docs/ is reachable from README.md.
    start = os.path.join(root, "README.md")
    reached, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                if nxt in graph:
                    todo.append(nxt)
    for page in pages:
        if page not in reached:
            problem(msgs, "links: %s cannot be reached from README.md by its links" % os.path.relpath(page, root))
    with open(start, encoding="utf-8") as fh:
        lines = fh.read().count("\n")
    if lines >= README_MAX_LINES:
        problem(msgs, "links: README.md has %d lines; keep it under %d (the rest belongs under docs/)" % (lines, README_MAX_LINES))
    return count, len(pages)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: check-docs.py ROOT BINARY")
    root, binary = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    msgs = []
    n_flags = check_flags(root, binary, msgs)
    n_ids = check_invariants(root, binary, msgs)
    n_links, n_pages = check_links(root, msgs)
    if msgs:
        for m in msgs:
            print("check-docs: " + m)
        print("check-docs: %d problem(s)" % len(msgs))
        return 1
    print("check-docs: %d options of 4 commands, %d invariant ids, %d relative links in %d pages: the docs agree"
          % (n_flags, n_ids, n_links, n_pages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
