#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The field table: real MCP servers from npm, run by ctxo-conform as a new user would.

  field.py install              install every server of servers.json (pinned) into the cache
  field.py run --out DIR [--slice K/N] [--only ID,...]
                                run the servers of one slice, one at a time; DIR/<id>.json each
  field.py merge --out FIELD.md DIR...
                                one table from the results of every slice, with the judgements

bench/field/run.sh is the one command that does all three; see docs/FIELD.md for the table.
Standard library only (Python 3.8+).
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MANIFEST = os.path.join(HERE, "servers.json")
JUDGEMENTS = os.path.join(HERE, "judgements.json")


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("CTXO_FIELD_CACHE") or os.path.join(base, "ctxo-field")


def load_manifest():
    with open(MANIFEST, encoding="utf-8") as f:
        m = json.load(f)
    ids = [s["id"] for s in m["servers"]]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"field: duplicate ids in servers.json: {sorted(dup)}")
    return m


def slug(pkg, version):
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{pkg}@{version}")


def pkg_dir(s):
    return os.path.join(cache_dir(), "pkgs", slug(s["package"], s["version"]))


def install_marker(s):
    return json.dumps([f"{s['package']}@{s['version']}"] + s.get("extra_packages", []))


def is_installed(s):
    try:
        with open(os.path.join(pkg_dir(s), ".field-installed"), encoding="utf-8") as f:
            return f.read() == install_marker(s) and installed_version(s) == s["version"]
    except OSError:
        return False


def installed_version(s):
    pj = os.path.join(pkg_dir(s), "node_modules", s["package"], "package.json")
    try:
        with open(pj, encoding="utf-8") as f:
            return json.load(f).get("version")
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------
# install


def cmd_install(args):
    m = load_manifest()
    servers = select(m["servers"], args.only, args.slice)
    failed = []
    for s in servers:
        if is_installed(s):
            print(f"install: {s['package']}@{s['version']} already in {pkg_dir(s)}")
            continue
        d = pkg_dir(s)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "package.json"), "w", encoding="utf-8") as f:
            json.dump({"private": True, "description": "ctxo-conform field table"}, f)
        specs = [f"{s['package']}@{s['version']}"] + s.get("extra_packages", [])
        print(f"install: {' '.join(specs)} -> {d}", flush=True)
        t0 = time.time()
        with open(os.path.join(d, "install.log"), "w", encoding="utf-8") as log:
            env = dict(os.environ, **s.get("install_env", {}))
            rc = subprocess.call(["npm", "install", "--no-audit", "--no-fund", "--save-exact", *specs],
                                 cwd=d, stdout=log, stderr=subprocess.STDOUT, env=env)
        if rc != 0 or installed_version(s) != s["version"]:
            failed.append(s["id"])
            print(f"install: FAILED {s['id']} (exit {rc}; {os.path.join(d, 'install.log')})", flush=True)
        else:
            with open(os.path.join(d, ".field-installed"), "w", encoding="utf-8") as f:
                f.write(install_marker(s))
            print(f"install: {s['id']} in {time.time() - t0:.0f} s", flush=True)
    if failed:
        print(f"install: {len(failed)} failed: {', '.join(failed)} (their rows say so)")
    return 0


# ---------------------------------------------------------------------------------------------
# run


def select(servers, only, slice_spec):
    if only:
        want = set(only.split(","))
        servers = [s for s in servers if s["id"] in want]
    if slice_spec:
        k, n = (int(x) for x in slice_spec.split("/"))
        if not (1 <= k <= n):
            sys.exit(f"field: bad --slice {slice_spec}")
        # round robin keeps the slow servers apart (the manifest lists them spread out)
        servers = [s for i, s in enumerate(servers) if i % n == k - 1]
    return servers


def harness_binary():
    b = os.environ.get("CTXO") or os.path.join(REPO, "build", "ctxo-conform")
    if not os.access(b, os.X_OK):
        sys.exit(f"field: no ctxo-conform at {b} (build it, or set CTXO=path)")
    return b


def harness_version(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    m = re.match(r"ctxo-conform (\S+)(?: \(commit (\w+)\))?", out)
    return {"version": m.group(1) if m else out, "commit": (m.group(2) if m else "") or "", "line": out}


def fill(v, ctx):
    if not isinstance(v, str):
        return v
    for k, x in ctx.items():
        v = v.replace("{" + k + "}", x)
    return v


def snapshot(paths):
    """name -> (type, size, mtime) of each entry at the top of $HOME, and a hash of the corpus
    template: what a server must not change. Deeper trees are the sandbox's to protect; this is
    the check that it did."""
    snap = {}
    home = os.path.expanduser("~")
    for name in sorted(os.listdir(home)):
        p = os.path.join(home, name)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        snap["~/" + name] = (st.st_mode >> 12, st.st_size if not os.path.isdir(p) else 0, int(st.st_mtime))
    for label, root in paths.items():
        h = hashlib.sha256()
        n = 0
        for dp, dns, fns in os.walk(root):
            dns.sort()
            for fn in sorted(fns):
                p = os.path.join(dp, fn)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                h.update(f"{os.path.relpath(p, root)}\0{st.st_size}\0{int(st.st_mtime)}\n".encode())
                n += 1
        snap[label] = (n, h.hexdigest())
    return snap


def repo_changes(since):
    """Files of the repository modified after `since` (the repo is never a server's workspace:
    any change here during a server's run is reported; other processes editing the tree show too)."""
    hits = []
    for dp, dns, fns in os.walk(REPO):
        dns[:] = [d for d in dns if d not in (".git", "build", "node_modules", ".ctxo-conform") and not d.startswith("build-")]
        for fn in fns:
            p = os.path.join(dp, fn)
            try:
                if os.lstat(p).st_mtime > since:
                    hits.append(os.path.relpath(p, REPO))
            except OSError:
                pass
    return sorted(hits)[:20]


def diff_snap(a, b):
    out = []
    for k in sorted(set(a) | set(b)):
        if k == "~/.cache" or k == "~/.npm":
            continue  # npm's cache and ours: written by the installs, never by a sandboxed server
        if a.get(k) != b.get(k):
            out.append(k + (" (new)" if k not in a else " (gone)" if k not in b else " (changed)"))
    return out


def summarise_report(r):
    tools = []
    for t in r.get("tools", []):
        cov = t.get("coverage", {}) or {}
        tools.append({"name": t.get("name"), "selected": t.get("selected", True), "calls": t.get("calls", 0),
                      "data": cov.get("data", 0), "successes": t.get("successes", 0),
                      "changes": (t.get("changes") or {}).get("counts", {})})
    findings = []
    for f in r.get("findings", []):
        findings.append({"invariant": f.get("invariant"), "tool": f.get("tool", ""), "severity": f.get("severity"),
                         "count": f.get("count", 1), "cause": (f.get("cause") or {}).get("id", ""),
                         "facts": (f.get("cause") or {}).get("facts", {}), "tools": f.get("tools", []),
                         "diagnosis": f.get("diagnosis", ""), "request": f.get("request")})
    return {"verdict": r.get("verdict"), "exit_code": r.get("exit_code"), "duration_ms": r.get("duration_ms"),
            "started_at": r.get("started_at"), "stats": r.get("stats", {}), "server": r.get("server", {}),
            "sandbox": (r.get("sandbox") or {}).get("description", ""), "sandbox_used": (r.get("sandbox") or {}).get("used"),
            "tools": tools, "findings": findings, "notes": r.get("notes", []),
            "stderr_tail": (r.get("stderr_tail") or "")[-1500:]}


def run_one(s, binary, hv, out_dir, corpus_template, args):
    base = tempfile.mkdtemp(prefix=f"ctxo-field-{s['id']}-")
    ws = os.path.join(base, "ws")
    scratch = os.path.join(base, "scratch")
    os.makedirs(scratch)
    if s.get("workspace"):
        shutil.copytree(corpus_template, ws, symlinks=True)
        cwd = ws
    else:
        cwd = scratch
    ctx = {"ws": ws, "scratch": scratch, "cwd": cwd, "pkg": pkg_dir(s)}
    for path, text in s.get("files", {}).items():
        path = fill(path, ctx)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(fill(text, ctx))
    result = {"id": s["id"], "package": s["package"], "version": s["version"], "category": s["category"],
              "sdk": s.get("sdk", ""), "harness": hv, "time_budget": args.time_budget}
    report = os.path.join(base, "report.json")
    exe = os.path.join(pkg_dir(s), "node_modules", ".bin", s["bin"])
    if not is_installed(s) or not os.path.exists(exe):
        result.update({"status": "not-installed", "wall_s": 0.0})
        shutil.rmtree(base, ignore_errors=True)
        return result
    server_cmd = [exe] + [fill(a, ctx) for a in s.get("args", [])]
    cmd = [binary, "--seed", str(args.seed), "--time-budget", str(s.get("time_budget", args.time_budget)),
           "--json", report, "--no-cases", "--color", "never", "-q", "--cwd", cwd]
    if s.get("workspace") and s.get("root", True):
        cmd += ["--root", ws]
    for k, v in s.get("env", {}).items():
        cmd += ["--env", f"{k}={fill(v, ctx)}"]
    cmd += [fill(a, ctx) for a in args.common_flags + s.get("flags", [])]
    cmd += ["--"] + server_cmd
    result["command"] = [os.path.basename(binary)] + [c.replace(base, "$SCRATCH").replace(pkg_dir(s), "$PKG")
                                                      for c in cmd[1:]]
    before = snapshot({"corpus template": corpus_template})
    t_start = time.time()
    outer = s.get("time_budget", args.time_budget) + args.outer_slack
    nice = ["nice", "-n", "19"] if shutil.which("nice") else []
    env = dict(os.environ)
    # the server's own env is what ctxo-conform gives it; keep node quiet about updates
    env.setdefault("NO_UPDATE_NOTIFIER", "1")
    with open(os.path.join(base, "console.txt"), "w", encoding="utf-8") as console:
        p = subprocess.Popen(nice + cmd, cwd=scratch, stdout=console, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        timed_out = False
        try:
            rc = p.wait(timeout=outer)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGTERM)  # the harness writes its reports, reaps its servers
            try:
                rc = p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
    wall = time.time() - t_start
    # whatever is left of the process group (nothing, when the harness reaped its servers)
    try:
        os.killpg(p.pid, 0)
        leftovers = True
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        leftovers = False
    after = snapshot({"corpus template": corpus_template})
    outside = diff_snap(before, after)
    result.update({"status": "ran", "exit_code": rc, "timed_out": timed_out, "wall_s": round(wall, 1),
                   "safety": {"outside_changes": outside, "leftover_processes": leftovers,
                              "repo_changed_meanwhile": repo_changes(t_start)}})
    try:
        with open(report, encoding="utf-8") as f:
            full = json.load(f)
        result["report"] = summarise_report(full)
        os.makedirs(os.path.join(out_dir, "reports"), exist_ok=True)
        shutil.copy(report, os.path.join(out_dir, "reports", f"{s['id']}.json"))
    except (OSError, ValueError):
        result["report"] = None
    with open(os.path.join(base, "console.txt"), encoding="utf-8", errors="replace") as f:
        result["console_tail"] = f.read()[-2000:]
    shutil.rmtree(base, ignore_errors=True)
    return result


def cmd_run(args):
    m = load_manifest()
    servers = select(m["servers"], args.only, args.slice)
    binary = harness_binary()
    hv = harness_version(binary)
    args.common_flags = [] if args.network == "shared" else m.get("flags", [])
    os.makedirs(args.out, exist_ok=True)
    template = tempfile.mkdtemp(prefix="ctxo-field-corpus-")
    corpus = os.path.join(template, "corpus")
    subprocess.check_call(["bash", os.path.join(HERE, "make-corpus.sh"), corpus], stdout=subprocess.DEVNULL)
    t0 = time.time()
    meta = {"slice": args.slice or "1/1", "harness": hv, "started_at": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine(), "seed": args.seed,
            "time_budget": args.time_budget, "flags": args.common_flags, "servers": [s["id"] for s in servers]}
    try:
        for i, s in enumerate(servers, 1):
            print(f"[{i}/{len(servers)}] {s['id']} ({s['package']}@{s['version']})", flush=True)
            r = run_one(s, binary, hv, args.out, corpus, args)
            rep = r.get("report") or {}
            print(f"    {r.get('status')}: verdict {rep.get('verdict', '-')}, exit {r.get('exit_code', '-')}, "
                  f"{len(rep.get('findings', []))} finding(s), {r.get('wall_s')} s"
                  + (f"; OUTSIDE CHANGES: {r['safety']['outside_changes']}" if r.get('safety', {}).get('outside_changes') else ""),
                  flush=True)
            with open(os.path.join(args.out, f"{s['id']}.json"), "w", encoding="utf-8") as f:
                json.dump(r, f, indent=1, ensure_ascii=False)
    finally:
        shutil.rmtree(template, ignore_errors=True)
    meta["wall_s"] = round(time.time() - t0, 1)
    with open(os.path.join(args.out, f"slice-{(args.slice or '1/1').replace('/', '-of-')}.meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"field: {len(servers)} server(s) in {meta['wall_s']} s -> {args.out}")
    return 0


def machine():
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    node = ""
    try:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    return {"os": f"{platform.system()} {platform.release()}", "cpus": os.cpu_count(), "memory": mem,
            "node": node, "ci": bool(os.environ.get("GITHUB_ACTIONS"))}


# ---------------------------------------------------------------------------------------------
# merge


def load_judgements():
    try:
        with open(JUDGEMENTS, encoding="utf-8") as f:
            return json.load(f)["judgements"]
    except OSError:
        return []


def judge(r, f, judgements):
    for j in judgements:
        if (j["package"] == r["package"] and j["version"] == r["version"] and j["invariant"] == f["invariant"]
                and j["tool"] == f["tool"] and j["cause"] == f["cause"]):
            return j
    return None


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def cmd_merge(args):
    m = load_manifest()
    order = {s["id"]: i for i, s in enumerate(m["servers"])}
    manifest_by_id = {s["id"]: s for s in m["servers"]}
    results, metas = {}, []
    for d in args.dirs:
        for fn in sorted(os.listdir(d)):
            p = os.path.join(d, fn)
            if fn.endswith(".meta.json"):
                metas.append(json.load(open(p, encoding="utf-8")))
            elif fn.endswith(".json") and os.path.isfile(p):
                r = json.load(open(p, encoding="utf-8"))
                if "id" in r:
                    results[r["id"]] = r
    rows = sorted(results.values(), key=lambda r: order.get(r["id"], 1 << 30))
    judgements = load_judgements()
    tally = {"true": 0, "debatable": 0, "false": 0, "new": 0}
    tools_called = tools_data = 0
    verdicts = {}
    total_wall = 0.0
    finding_rows = []
    server_rows = []
    reach_rows = []
    outside = []
    for r in rows:
        rep = r.get("report") or {}
        total_wall += r.get("wall_s", 0.0)
        verdict = rep.get("verdict") or ("not installed" if r.get("status") == "not-installed" else "no report")
        if r.get("timed_out"):
            verdict += " (outer timeout)"
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        called = [t for t in rep.get("tools", []) if t["calls"] > 0]
        with_data = [t for t in called if t["data"] > 0]
        tools_called += len(called)
        tools_data += len(with_data)
        groups = {}
        for f in rep.get("findings", []):
            j = judge(r, f, judgements)
            key = j["verdict"] if j else "new"
            tally[key] += 1
            label = {"true": "true", "debatable": "debatable", "false": "FALSE", "new": "**new**"}[key]
            groups.setdefault(f["invariant"], {}).setdefault(label, 0)
            groups[f["invariant"]][label] += 1
            finding_rows.append((r, f, j, label))
        ids = []
        for inv, labels in groups.items():
            many = len(labels) > 1 or sum(labels.values()) > 1
            ids.append(inv + " " + ", ".join((f"{n}× " if many else "") + lab for lab, n in labels.items()))
        srv = rep.get("server", {})
        stats = rep.get("stats", {})
        man = manifest_by_id.get(r["id"], {})
        server_rows.append("| " + " | ".join(md_cell(x) for x in [
            f"`{r['package']}`", r["version"], man.get("category", r["category"]), man.get("sdk", r.get("sdk", "")),
            f"{stats.get('tools', '-')}/{len(called)}" if rep else "-",
            verdict, f"{len(with_data)}/{len(called)}" if rep else "-",
            ", ".join(ids) if ids else ("none" if rep else "-"),
            f"{r.get('wall_s', 0):.1f} s", r.get("harness", {}).get("version", "") + (
                f" ({r['harness']['commit']})" if r.get("harness", {}).get("commit") else "")]) + " |")
        no_data = [t["name"] for t in called if t["data"] == 0]
        if no_data or man.get("note"):
            reach_rows.append(f"- `{r['package']}`: " + (f"no data from {', '.join(f'`{n}`' for n in no_data)}" if no_data else "every called tool reached data")
                              + (f". {man['note']}" if man.get("note") else ""))
        saf = r.get("safety", {})
        if saf.get("outside_changes") or saf.get("leftover_processes"):
            outside.append(f"- `{r['id']}`: " + "; ".join(
                ([f"changed outside its scratch directories: {', '.join(saf['outside_changes'])}"] if saf.get("outside_changes") else [])
                + (["processes left in its process group after the run"] if saf.get("leftover_processes") else [])))
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    hv = sorted({f"{x['harness']['version']} (commit {x['harness']['commit']})" for x in metas}) or ["?"]
    mach = metas[0]["machine"] if metas else {}
    slices_wall = [x.get("wall_s", 0) for x in metas]
    started = min((x["started_at"] for x in metas), default="?")
    L = []
    L.append("# The field table: ctxo-conform on real MCP servers")
    L.append("")
    L.append("<!-- Generated by bench/field/field.py merge; do not edit by hand: edit bench/field/servers.json "
             "or bench/field/judgements.json and refresh. -->")
    L.append("")
    L.append(f"{len(rows)} MCP servers from the npm registry, installed at pinned versions and run by "
             "ctxo-conform as a new user would run it: default flags in a sandbox, servers that need no network "
             "or credentials. Every finding was judged by hand once "
             "([judgements](../bench/field/judgements.json), with the evidence); a finding no judgement "
             "matches is shown as **new** until someone judges it.")
    L.append("")
    L.append("How it was made:")
    L.append("")
    L.append(f"- run started {started}, table written {now}; harness {', '.join(hv)}")
    L.append(f"- machine: {mach.get('os', '?')}, {mach.get('cpus', '?')} CPUs, {mach.get('memory', '?')}, "
             f"node {mach.get('node', '?')}{' (GitHub Actions)' if mach.get('ci') else ''}; servers one at a time, `nice -n 19`")
    tb = metas[0]["time_budget"] if metas else "?"
    flags = " ".join(metas[0].get("flags", [])) if metas else ""
    sandbox_words = ("the bubblewrap sandbox with its own loopback only (`--sandbox offline`: the servers "
                     "need no network, and none is given)" if "offline" in flags else "the harness's default sandbox (bubblewrap)")
    L.append(f"- per server: `ctxo-conform --seed {metas[0]['seed'] if metas else 1} --time-budget {tb} --json R --no-cases "
             f"{flags + ' ' if flags else ''}--cwd SCRATCH [--root WS] [--env ...] -- SERVER ARGS`, otherwise default flags; "
             f"{sandbox_words}; an outer timeout ends the whole process group; WS is a fresh copy of the corpus "
             "(`bench/field/make-corpus.sh`: a small git project with CJK, emoji and astral characters in "
             "TypeScript, Python, Markdown and JSON, 4 commits, a tag and a branch) for the servers that read a "
             "workspace; each server's command, environment and flags are in "
             "[servers.json](../bench/field/servers.json)")
    L.append(f"- {len(metas)} slice(s), wall time {' + '.join(f'{w:.0f} s' for w in slices_wall)}; "
             f"the servers' runs add up to {total_wall:.0f} s")
    L.append("- refresh: `bash bench/field/run.sh` (installs the servers into "
             "`${XDG_CACHE_HOME:-~/.cache}/ctxo-field`, runs them, writes this file); in slices: "
             "`bash bench/field/run.sh --slice K/N --results DIR` on each machine, then "
             "`bash bench/field/run.sh --merge DIR...`; weekly in `.github/workflows/field.yml`")
    L.append("")
    L.append("## Totals")
    L.append("")
    L.append(f"- servers: {len(rows)}; verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
    L.append(f"- findings: {sum(tally.values())}: {tally['true']} true, {tally['debatable']} debatable, "
             f"{tally['false']} false (harness bugs), {tally['new']} not judged yet (**new**)")
    L.append(f"- tools called {tools_called}, of which {tools_data} reached data (an answer with data, not "
             "an error, a miss or an empty result)")
    L.append(f"- run time: {total_wall:.0f} s for all servers")
    L.append("- safety: " + ("nothing outside the servers' scratch directories changed "
                             "(top of `$HOME`, the corpus template), no process left behind"
                             if not outside else "see below: **changes outside the scratch directories**"))
    repo_touched = [(r["id"], r["safety"]["repo_changed_meanwhile"]) for r in rows
                    if r.get("safety", {}).get("repo_changed_meanwhile")]
    if repo_touched:
        L.append("- repository files modified while a server ran (the sandbox binds the checkout read-only, "
                 "so another process's edits): " + "; ".join(f"during `{i}`: {', '.join(f)}" for i, f in repo_touched))
    L.append("")
    L.append("## Servers")
    L.append("")
    L.append("Tools: listed/called. Data: called tools that reached data. Findings: invariant and its judgement.")
    L.append("")
    L.append("| server | version | kind | SDK / framework | tools | verdict | data | findings | time | harness |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    L.extend(server_rows)
    L.append("")
    L.append("## Findings")
    L.append("")
    if finding_rows:
        L.append("| server | invariant | tool | severity | count | cause | judgement | why |")
        L.append("|---|---|---|---|---|---|---|---|")
        last = None
        for r, f, j, label in finding_rows:
            tool = f["tool"] or ("on " + ", ".join(f["tools"]) if f["tools"] else "(server)")
            why = j["why"] if j else "(not judged yet) " + md_cell(f["diagnosis"])[:300]
            if j and last == (r["id"], j["why"]):
                why = "as above"
            last = (r["id"], j["why"]) if j else None
            L.append("| " + " | ".join(md_cell(x) for x in [
                f"`{r['package']}`", f["invariant"], f"`{tool}`" if f["tool"] else tool, f["severity"], f["count"],
                f"`{f['cause']}`", label, why]) + " |")
    else:
        L.append("None.")
    L.append("")
    L.append("## Reach")
    L.append("")
    L.append("Called tools whose calls never reached data, per server (why, where known):")
    L.append("")
    L.extend(reach_rows or ["- none"])
    if m.get("excluded"):
        L.append("")
        L.append("## Tried and left out")
        L.append("")
        L.append("Servers tried for this table that do not belong in it (they need what the table does not give):")
        L.append("")
        for x in m["excluded"]:
            L.append(f"- `{x['package']}` {x['version']}: {x['why']}")
    if outside:
        L.append("")
        L.append("## Changes outside the scratch directories")
        L.append("")
        L.extend(outside)
    L.append("")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(L))
    print(f"field: {len(rows)} server(s), {sum(tally.values())} finding(s) "
          f"({tally['true']} true, {tally['debatable']} debatable, {tally['false']} false, {tally['new']} new) -> {args.out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("install")
    a.add_argument("--only")
    a.add_argument("--slice")
    a = sub.add_parser("run")
    a.add_argument("--out", required=True)
    a.add_argument("--slice")
    a.add_argument("--only")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--time-budget", type=int, default=int(os.environ.get("FIELD_TIME_BUDGET", "90")))
    a.add_argument("--network", choices=["offline", "shared"], default="offline",
                   help="offline (default): servers.json's flags (--sandbox offline); shared: the harness's own default")
    a.add_argument("--outer-slack", type=int, default=120, help="seconds past the time budget before the outer timeout")
    a = sub.add_parser("merge")
    a.add_argument("--out", required=True)
    a.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    return {"install": cmd_install, "run": cmd_run, "merge": cmd_merge}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
