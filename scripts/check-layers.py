#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks the layer table of docs/ARCHITECTURE.md (the fenced ```layers block) against the code:
# which folder's sources include which other folder's headers. A folder is a subdirectory of
# harness/ that holds sources, and reports/ at the top level. An arrow `a -> b` means a file under
# a/ includes a file under b/ (`#include "b/x.h"`, or a relative path that lands in b/). Exits 1,
# with one line per difference, when the code has an arrow the table lacks, the table lists one
# the code lacks, a folder has no row (or a row names no folder), or a folder's row comes before
# a folder it includes (the block lists the layers bottom up: each row after all it includes).
#   scripts/check-layers.py [ROOT]            check (ROOT: the source tree, default: this one)
#   scripts/check-layers.py [ROOT] --print    print the block the code gives, to paste in the doc
import os
import re
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c", ".in", ".inc", ".ipp")
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', re.M)
BLOCK = re.compile(r"^```layers[ \t]*\n(.*?)^```", re.M | re.S)


def layer_dirs(root):
    """{name: absolute path} of every layer: harness/<dir> with sources, and reports/."""
    dirs = {}
    harness = os.path.join(root, "harness")
    for name in sorted(os.listdir(harness)):
        path = os.path.join(harness, name)
        if os.path.isdir(path) and any(sources(path)):
            dirs[name] = path
    reports = os.path.join(root, "reports")
    if os.path.isdir(reports) and any(sources(reports)):
        if "reports" in dirs:
            sys.exit("check-layers: harness/reports and reports/ both exist: the names would clash")
        dirs["reports"] = reports
    return dirs


def sources(path):
    for base, subdirs, files in os.walk(path):
        subdirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.join(base, f)


def layer_of(path, dirs):
    path = os.path.realpath(path)
    for name, d in dirs.items():
        d = os.path.realpath(d)
        if path == d or path.startswith(d + os.sep):
            return name
    return None


def code_graph(root):
    """{layer: {layer it includes: first 'file: #include' seen}}, self-includes left out."""
    dirs = layer_dirs(root)
    graph = {name: {} for name in dirs}
    for name, d in dirs.items():
        for f in sources(d):
            with open(f, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1) or m.group(2)
                target = None
                first = inc.split("/", 1)[0]
                if "/" in inc and first in dirs:
                    target = first  # "core/result.h": include paths are harness/ and the root
                elif m.group(1):
                    # A relative include that reaches another folder ("../core/x.h").
                    target = layer_of(os.path.join(os.path.dirname(f), inc), dirs)
                if target and target != name and target not in graph[name]:
                    graph[name][target] = "%s: #include %s" % (os.path.relpath(f, root), m.group(0).split("include", 1)[1].strip())
    return graph


def doc_table(doc_path):
    """[(layer, [deps])] in the block's order."""
    with open(doc_path, encoding="utf-8") as fh:
        text = fh.read()
    blocks = BLOCK.findall(text)
    if len(blocks) != 1:
        sys.exit("check-layers: %s must hold exactly one ```layers block, found %d" % (doc_path, len(blocks)))
    rows = []
    for n, line in enumerate(blocks[0].splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([a-z0-9_]+)\s*->\s*(.*)", line)
        if not m:
            sys.exit("check-layers: %s, layers block line %d: expected `folder -> deps` or `folder -> (nothing)`, got %r"
                     % (doc_path, n, line))
        deps = m.group(2).strip()
        rows.append((m.group(1), [] if deps == "(nothing)" else deps.split()))
    return rows


def render(graph):
    """The block for `graph`: bottom up, each folder after all it includes, a tier alphabetical."""
    tiers, placed = [], set()
    remaining = sorted(graph)
    while remaining:
        ready = [n for n in remaining if set(graph[n]) <= placed]
        if not ready:
            sys.exit("check-layers: the code's include graph has a cycle among " + ", ".join(remaining))
        tiers.append(ready)  # a tier: what includes only the tiers below it, alphabetical
        placed.update(ready)
        remaining = [n for n in remaining if n not in placed]
    order = [n for tier in tiers for n in tier]
    width = max(len(n) for n in order)
    lines = []
    for n in order:
        deps = " ".join(sorted(graph[n])) or "(nothing)"
        lines.append("%s -> %s" % (n.ljust(width), deps))
    return "```layers\n" + "\n".join(lines) + "\n```"


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    graph = code_graph(root)
    if "--print" in argv:
        print(render(graph))
        return 0
    doc = os.path.join(root, "docs", "ARCHITECTURE.md")
    rows = doc_table(doc)
    problems = []
    seen = {}
    for i, (name, deps) in enumerate(rows):
        if name in seen:
            problems.append("%s is listed twice in the layers block" % name)
        seen[name] = i
    for name, deps in rows:
        if name not in graph:
            problems.append("the layers block lists %s, which is no folder of harness/ (nor reports/)" % name)
            continue
        for d in deps:
            if d not in graph[name]:
                problems.append("the doc says %s -> %s, but no file of %s includes %s" % (name, d, name, d))
            if d in seen and seen[d] >= seen[name]:
                problems.append("%s is listed after %s, which includes it: list each folder after all it includes"
                                % (d, name))
    for name in sorted(graph):
        if name not in seen:
            problems.append("%s/ has no row in the layers block (the code gives: %s -> %s)"
                            % (name, name, " ".join(sorted(graph[name])) or "(nothing)"))
            continue
        listed = dict(rows)[name]
        for d in sorted(graph[name]):
            if d not in listed:
                problems.append("the code has %s -> %s (%s), which the layers block does not list"
                                % (name, d, graph[name][d]))
    if problems:
        for p in problems:
            print("check-layers: " + p)
        print("check-layers: %d difference(s) between %s and the code; `%s --print` prints the block the code gives"
              % (len(problems), os.path.relpath(doc, root), os.path.relpath(__file__, root)))
        return 1
    arrows = sum(len(v) for v in graph.values())
    print("check-layers: %d folders, %d arrows: docs/ARCHITECTURE.md agrees with the code" % (len(graph), arrows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
