#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Developer smoke test for reference-server (not a ctest; the real matrix runs through
# ctxo-conform): pipes scripted sessions into every (profile, defect), runs a small Python model
# of the envelope checks of docs/ENVELOPE-CHECKS.md (per response, E-STABLE, E-MISS and the limit
# sweep) and asserts that the conformant server trips none and each defect trips exactly its own.
# usage: tests/servers/reference_smoke.sh [BUILD_DIR [conformant|DEFECT ...]]   (default: build-ref, all)
#   REF_DUMP=FILE also writes every envelope seen as "<profile>\t<json>" lines (for a schema check).
set -euo pipefail
build="${1:-build-ref}"
export SERVER="$build/tests/servers/reference-server"
export REPO="$(cd "$(dirname "$0")/../.." && pwd)"
[[ -x "$SERVER" ]] || { echo "error: build reference-server in $build first" >&2; exit 2; }
exec python3 - "${@:2}" <<'PY'
import glob, json, math, os, re, subprocess, sys

SERVER, REPO = os.environ["SERVER"], os.environ["REPO"]
ROOT = os.path.join(REPO, "corpus/workspace")
PROFILES = {}
for path in glob.glob(os.path.join(REPO, "schemas/profiles/*.json")):
    p = json.load(open(path, encoding="utf-8"))
    if p["name"] != "none":
        PROFILES[p["name"]] = p
ABSENT_ID, ABSENT_PATH = "ctxo-conform-absent-7f3a", "no/such/ctxo-conform-absent.txt"
ID_PARAM = re.compile(r"^(id|.*Id|.*_id|name|symbol.*|file|path|node.*|uri)$")
DUMP = open(os.environ["REF_DUMP"], "w", encoding="utf-8") if os.environ.get("REF_DUMP") else None
VALUES = ["hello", "a", "ünïcödé 漢字 😀", "test value", "x_1", "مرحبا", "aaa"]

# ---- JSON helpers -------------------------------------------------------------------------------
def js(v):  # JSON.stringify(v) for the values these servers send (no floats but x.0 / x.5)
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
def utf16(s): return len(s.encode("utf-16-le")) // 2
def ptr(doc, pointer):
    if pointer == "": return True, doc
    cur = doc
    for tok in pointer.split("/")[1:]:
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and tok in cur: cur = cur[tok]
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur): cur = cur[int(tok)]
        else: return False, None
    return True, cur
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
def has_type(v, t):
    if isinstance(t, list): return any(has_type(v, x) for x in t)
    if t in ("integer", "number"): return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])
def holds(c, doc):
    present, v = ptr(doc, c["pointer"])
    if c.get("absent"): return not present
    if not present: return False
    if "type" in c and not has_type(v, c["type"]): return False
    if "equals" in c and v != c["equals"]: return False
    return True
def detect(doc):
    best = None
    for p in PROFILES.values():
        score = max([len(r["all"]) for r in p["detection"]["anyOf"] if all(holds(c, doc) for c in r["all"])] or [0])
        if score and (best is None or (score, p["detection"].get("priority", 0)) > best[0]):
            best = ((score, p["detection"].get("priority", 0)), p["name"])
    return best[1] if best else None
def form(profile, doc):
    for kind in ("error", "miss"):
        f = PROFILES[profile]["forms"][kind]
        if f and all(holds(c, doc) for c in f["when"]): return kind
    return "success"

# ---- sessions -----------------------------------------------------------------------------------
class Session:
    """One server process: initialize, tools/list, then the given calls; returns results by call."""
    def __init__(self, profile, defect, calls, env=None):
        argv = [SERVER, "--profile", profile] + (["--defect", defect] if defect else [])
        e = dict(os.environ); e.pop("CTXO_RESPONSE_LIMIT", None); e.pop("TOOL_MAX_OUTPUT_BYTES", None)
        e.update(env or {})
        msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}]
        for i, (tool, args) in enumerate(calls):
            msgs.append({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        p = subprocess.run(argv, input="".join(json.dumps(m) + "\n" for m in msgs).encode(), capture_output=True, env=e, timeout=60)
        byid = {}
        for line in p.stdout.decode("utf-8").splitlines():
            m = json.loads(line); byid[m.get("id")] = m
        self.tools = {t["name"]: t for t in byid[1]["result"]["tools"]}
        self.results = [byid[100 + i]["result"] for i in range(len(calls))]

def envelope_of(result):
    """(text, doc, parts_ok): the envelope text and object, and whether the result is one JSON text part."""
    texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    docs = []
    for t in texts:
        try:
            d = json.loads(t)
            if isinstance(d, dict): docs.append((t, d))
        except ValueError:
            pass
    if not docs: return None, None, False
    ok = len(result.get("content", [])) == 1 and len(texts) == 1 and len(docs) == 1
    return docs[0][0], docs[0][1], ok

# ---- per-response checks ------------------------------------------------------------------------
def cut_array(profile, doc, returned):
    p = PROFILES[profile]["truncation"]
    _, cont = ptr(doc, p["container"])
    if p.get("selection") == "container":
        return (p["container"], cont) if isinstance(cont, list) else (None, None)
    cands = []
    if isinstance(cont, dict):
        for k, v in cont.items():
            if isinstance(v, list) and (k in p.get("fields", []) or p.get("anyArray")): cands.append((p["container"] + "/" + k, v))
    for c in cands:
        if returned is not None and len(c[1]) == returned: return c
    return max(cands, key=lambda c: len(c[1])) if cands else (None, None)

def limit_of(profile, env):
    lim = PROFILES[profile]["limit"]
    v = (env or {}).get(lim.get("env", ""), "")
    return int(v) if v.isdigit() and int(v) > 0 else lim["default"]

def anchors(v, out):
    if isinstance(v, dict):
        f = next((k for k in ("file", "path", "filePath", "uri") if k in v), None)
        l = next((k for k in ("line", "startLine", "lineNumber") if k in v), None)
        if f and l: out.append(v)
        for x in v.values(): anchors(x, out)
    elif isinstance(v, list):
        for x in v: anchors(x, out)
    return out

HINT_TOOL = re.compile(r"[A-Za-z0-9]+(?:[_.\-][A-Za-z0-9]+)+")
def hint_refs(hint, tools, called, kind, found):
    heads = {re.split(r"[_.\-]", t)[0] for t in tools}
    named = None
    for tok in HINT_TOOL.findall(hint):
        if re.split(r"[_.\-]", tok)[0] in heads:
            if tok not in tools: found.add("E-HINT-REF")
            elif named is None: named = tok
    schema = tools.get(named or called, {}).get("inputSchema", {}).get("properties", {})
    params = re.findall(r"--([A-Za-z][A-Za-z0-9_-]*)", hint) + re.findall(r"\b([A-Za-z][A-Za-z0-9_]*)[:=](?!/)", hint)
    for name in params:
        if name not in schema: found.add("E-HINT-REF")
    if kind == "command":
        for must in PROFILES["meta"]["hint"].get("mustMention", []):
            if must not in hint: found.add("E-HINT-REF")

def check_schema(profile, kind, d, found):
    """A hand-written reading of schemas/envelope/<profile>/<kind>.schema.json (the essentials)."""
    cnt = lambda x: isinstance(x, int) and not isinstance(x, bool) and x >= 0
    bad = False
    if profile == "ctxo":
        if kind == "success":
            m = d.get("_meta")
            bad = not isinstance(m, dict) or not all(cnt(m.get(k)) for k in ("totalItems", "returnedItems", "totalBytes")) \
                or not isinstance(m.get("truncated"), bool) or ("hint" in m and not isinstance(m["hint"], str))
            bad = bad or any(k in d and not isinstance(d[k], list) for k in PROFILES["ctxo"]["truncation"]["fields"])
        elif kind == "miss": bad = d.get("found") is not False or not isinstance(d.get("hint"), str) or not d["hint"]
        else: bad = d.get("error") is not True or not isinstance(d.get("message"), str) or not d["message"]
    elif profile == "budget":
        tb = d.get("tokenBudget")
        bad = not isinstance(tb, dict) or not all(cnt(tb.get(k)) for k in ("requested", "used", "max")) \
            or not isinstance(d.get("truncated"), bool) or not isinstance(d.get("warnings"), list)
        if "dropped" in d:
            dr = d["dropped"]; bad = bad or not (isinstance(dr.get("kind"), str) and cnt(dr.get("count")) and isinstance(dr.get("note"), str))
        if kind == "success": bad = bad or d.get("ok") is not True or "data" not in d
        else: bad = bad or d.get("ok") is not False or not isinstance(d.get("error", {}).get("code"), str) or not isinstance(d["error"].get("message"), str)
    elif profile == "meta":
        if kind == "success":
            m = d.get("meta", {})
            bad = d.get("ok") is not True or "data" not in d or d.get("error", 0) is not None or not isinstance(d.get("warnings"), list)
            bad = bad or (m.get("truncated") is True and not (cnt(m.get("total_count")) and cnt(m.get("returned_count"))))
        else: bad = d.get("ok") is not False or not isinstance(d.get("error"), (dict, str))
    else:
        if kind == "success":
            ti = d.get("truncation_info", {})
            bad = not isinstance(d.get("results"), list) or not all(cnt(d.get(k)) for k in ("total_count", "returned_count")) \
                or not isinstance(d.get("truncated"), bool) or ti.get("reason", 0) not in ("character_limit", "token_estimate", "single_result_too_large", None) \
                or not all(cnt(ti.get(k)) for k in ("original_count", "returned_count", "estimated_chars", "limit_chars", "estimated_tokens", "limit_tokens"))
        else: bad = not (isinstance(d.get("error"), str) and d["error"]) and not isinstance(d.get("error"), dict)
    if bad: found.add("E-SCHEMA")

def check_response(profile, tools, tool, args, result, env, found, seen, cap=None):
    """Adds the ids one answer trips to `found` (TR-CAP to `cap` when given: the sweep drops it
    for an answer that trips TR-ENV) and the form it claims to `seen`; returns the envelope."""
    cap = found if cap is None else cap
    text, d, parts_ok = envelope_of(result)
    if d is None:
        if result.get("isError"): found.add("isError")
        return None
    det = detect(d)
    if det != profile: found.add("DETECT:%s" % det)
    if not parts_ok: found.add("E-PARSE")
    if DUMP: DUMP.write(profile + "\t" + text + "\n")
    seen.add(form(profile, d))
    P = PROFILES[profile]; F = P["fields"]; kind = form(profile, d)
    check_schema(profile, kind, d, found)
    if kind == "error" and P["forms"]["error"]["codes"]:
        if ptr(d, P["forms"]["error"]["code"])[1] not in P["forms"]["error"]["codes"]: found.add("E-ERROR")
    hints = [ptr(d, F["hint"])[1]]
    if kind == "miss": hints.append(ptr(d, P["forms"]["miss"]["hint"])[1])
    if kind == "error" and "hint" in P["forms"]["error"]: hints.append(ptr(d, P["forms"]["error"]["hint"])[1])
    for h in hints:
        if isinstance(h, str) and P["hint"]["kind"] != "reason": hint_refs(h, tools, tool, P["hint"]["kind"], found)
    _, truncated = ptr(d, F["truncated"]); truncated = truncated is True
    if kind == "success" and truncated:
        h = ptr(d, F["hint"])[1]
        if not isinstance(h, str) or not h.strip(): found.add("TR-HINT")
    # TR-COUNT
    if kind == "success":
        if profile == "budget":
            dr = d.get("dropped")
            if truncated != (isinstance(dr, dict) and isinstance(dr.get("count"), int) and dr["count"] > 0): found.add("TR-COUNT")
        else:
            tp, tot = ptr(d, F["totalCount"]); rp, ret = ptr(d, F["returnedCount"])
            if tp and rp and isinstance(ret, int) and isinstance(tot, int):
                _, arr = cut_array(profile, d, ret)
                single = profile == "truncation-info" and d.get("truncation_info", {}).get("reason") == "single_result_too_large"
                if (arr is not None and len(arr) != ret) or tot < ret or (truncated != (ret < tot) and not single): found.add("TR-COUNT")
    # TR-CAP
    L = limit_of(profile, env)
    if kind == "success" and profile != "budget":
        _, arr = cut_array(profile, d, None)
        size = len(text.encode()) if P["limit"]["unit"] == "utf8" else len(text)
        if arr is not None and size > L: cap.add("TR-CAP")
    # TR-BYTES (untruncated)
    if kind == "success" and "totalBytes" in F and not truncated:
        rest = {k: v for k, v in d.items() if k != "_meta"}
        if ptr(d, F["totalBytes"])[1] != len(js(rest).encode()): found.add("TR-BYTES")
    # budget
    if profile == "budget":
        tb = d.get("tokenBudget", {}); B = P["budget"]
        req, used = tb.get("requested"), tb.get("used")
        if isinstance(used, int) and isinstance(req, int) and used > req: found.add("B-USED")
        arg = args.get("tokenBudget", B["default"])
        if isinstance(arg, int) and (req != min(max(arg, B["min"]), B["max"]) or tb.get("max") != B["max"]): found.add("B-CLAMP")
        est = math.ceil(utf16(text) / 4)
        if isinstance(used, int) and abs(used - est) > B["tolerance"] * est: found.add("B-ESTIMATE")
    # positions
    for a in anchors(d, []):
        f, line, col = a.get("file"), a.get("line"), a.get("col")
        if not isinstance(line, int) or line < 1 or (isinstance(col, int) and col < 1) or a.get("endLine", line) < line:
            found.add("POS-BASE")
        if not isinstance(f, str) or f.startswith("/") or "\\" in f or re.match(r"^[A-Za-z]:", f) or ".." in f.split("/"):
            found.add("POS-PATH")
        full = os.path.join(ROOT, f) if isinstance(f, str) else ""
        try:
            lines = open(full, encoding="utf-8").read().split("\n")
        except OSError:
            found.add("POS-UTF16"); continue
        if not isinstance(line, int) or line < 1 or line > len(lines): found.add("POS-UTF16"); continue
        units = lines[line - 1].encode("utf-16-le")
        snip = a.get("snippet")
        if isinstance(col, int) and (col > len(units) // 2 + 1 or
                                     (isinstance(snip, str) and units[2 * (col - 1):2 * (col - 1) + len(snip.encode("utf-16-le"))] != snip.encode("utf-16-le"))):
            found.add("POS-UTF16")
    return d

# ---- the run ------------------------------------------------------------------------------------
def cases(profile, tools):
    calls = []
    for name, t in tools.items():
        props = t["inputSchema"].get("properties", {})
        base = {k: (v.get("examples") or [VALUES[0]])[0] for k, v in props.items() if v.get("type") == "string" and k in t["inputSchema"].get("required", [])}
        calls.append((name, dict(base)))
        for key in [k for k in base if not ID_PARAM.match(k)]:
            for v in VALUES: calls.append((name, {**base, key: v}))
        for key in [k for k in base if ID_PARAM.match(k)]:
            for v in VALUES[:3]: calls.append((name, {**base, key: v}))
        if "tokenBudget" in props:
            for b in (100, 50, 800, 2000, 10000, 20000, -5, 0, 1):
                calls.append((name, {**base, "tokenBudget": b}))
        if "cursor" in props:
            calls.append((name, {**base, "cursor": "bogus"}))
        calls.append((name, {**base, "unexpected": True}))  # schema-invalid: the error form
        for key in base:
            calls.append((name, {**base, key: ""}))
    return calls

def run(profile, defect):
    found, seen = set(), set()
    tools = Session(profile, defect, []).tools
    calls = cases(profile, tools)
    main = Session(profile, defect, calls)
    docs = [check_response(profile, tools, c[0], c[1], r, None, found, seen) for c, r in zip(calls, main.results)]
    # E-STABLE: the first case of each tool, twice in a row
    firsts = []
    for c in calls:
        if c[0] not in [f[0] for f in firsts]: firsts.append(c)
    twice = Session(profile, defect, [c for c in firsts for _ in (0, 1)])
    for i in range(0, len(twice.results), 2):
        a, b = (envelope_of(twice.results[j])[1] for j in (i, i + 1))
        strip = lambda d: {k: v for k, v in (d or {}).items() if k != "warnings"}
        if strip(a) != strip(b): found.add("E-STABLE")
    # E-MISS: identifier parameters set to something that cannot exist
    misses = []
    for name, t in tools.items():
        props = t["inputSchema"].get("properties", {})
        ids = [k for k, v in props.items() if v.get("type") == "string" and ID_PARAM.match(k)]
        if ids:
            args = {k: (v.get("examples") or ["x"])[0] for k, v in props.items() if v.get("type") == "string" and k in t["inputSchema"].get("required", [])}
            for k in ids: args[k] = ABSENT_PATH if k in ("file", "path") or k.endswith("Path") else ABSENT_ID
            misses.append((name, args))
    ms = Session(profile, defect, misses)
    P = PROFILES[profile]
    for (name, args), r in zip(misses, ms.results):
        d = check_response(profile, tools, name, args, r, None, found, seen)
        if r.get("isError") or d is None: found.add("E-MISS"); continue
        kind = form(profile, d)
        if P["forms"]["miss"]: ok = kind == "miss"
        elif kind == "error": ok = ptr(d, P["forms"]["error"]["code"])[1] in P["forms"]["error"].get("missCodes", []) if "code" in P["forms"]["error"] else False
        else: ok = True
        if not ok: found.add("E-MISS")
    # the limit sweep
    lim = P["limit"]
    if "env" in lim and "sweep" in lim:
        runs = {lim["default"]: [(d, envelope_of(r)[0], set()) for d, r in zip(docs, main.results)]}
        for L in (lim["sweep"]["small"], lim["sweep"]["large"]):
            env = {lim["env"]: str(L)}
            s = Session(profile, defect, calls, env)
            runs[L] = []
            for c, r in zip(calls, s.results):
                cap = set()
                runs[L].append((check_response(profile, tools, c[0], c[1], r, env, found, set(), cap), envelope_of(r)[0], cap))
        F = P["fields"]
        large = runs[lim["sweep"]["large"]]
        for L in (lim["sweep"]["small"], lim["default"], lim["sweep"]["large"]):
            for i, (d, text, cap) in enumerate(runs[L]):
                d0, t0 = docs[i], envelope_of(main.results[i])[0]
                if d is None or d0 is None or form(profile, d) != "success": continue
                full, full_text, _ = large[i]
                tr0 = ptr(d0, F["truncated"])[1] is True
                if L != lim["default"] and text == t0 and ((L < len(t0.encode())) or (L > lim["default"] and tr0)):
                    found.add("TR-ENV")
                else:
                    found.update(cap)
                if ptr(full, F["truncated"])[1] is True: continue
                tr = ptr(d, F["truncated"])[1] is True
                ret = ptr(d, F["returnedCount"])[1]
                path, arr = cut_array(profile, d, ret)
                _, full_arr = cut_array(profile, full, None)
                if tr and arr is not None:
                    if arr != full_arr[:len(arr)] or (isinstance(ret, int) and arr != full_arr[:ret]): found.add("TR-PREFIX")
                    if isinstance(ret, int) and ret < len(full_arr):
                        cand = json.loads(text)
                        _, carr = ptr(cand, path); carr.append(full_arr[ret])
                        parent_ptr, key = F["returnedCount"].rsplit("/", 1)
                        ptr(cand, parent_ptr)[1][key] = ret + 1
                        if len(js(cand).encode()) <= L: found.add("TR-MAXIMAL")
                    if "totalBytes" in F:
                        rest = {k: v for k, v in full.items() if k != "_meta"}
                        if ptr(d, F["totalBytes"])[1] != len(js(rest).encode()): found.add("TR-BYTES")
                if len(full_text.encode()) <= L:
                    strip = lambda x: {k: v for k, v in x.items() if k not in ("_meta", "meta")}
                    if tr or strip(d) != strip(full): found.add("TR-VERBATIM")
    return found, seen

EXPECT = {  # (profile, defect) -> invariants it must trip (exactly)
    ("ctxo", None): set(), ("budget", None): set(), ("meta", None): set(), ("truncation-info", None): set(),
    ("ctxo", "warning-part"): {"E-PARSE"}, ("ctxo", "meta-type"): {"E-SCHEMA"},
    ("ctxo", "unstable-hint"): {"E-STABLE"}, ("ctxo", "miss-as-error"): {"E-MISS"},
    ("budget", "bad-error-code"): {"E-ERROR"}, ("ctxo", "dead-hint"): {"E-HINT-REF"},
    ("ctxo", "no-hint"): {"TR-HINT"}, ("ctxo", "count-off"): {"TR-COUNT"}, ("ctxo", "cap-chars"): {"TR-CAP"},
    ("ctxo", "bytes-utf16"): {"TR-BYTES"}, ("ctxo", "ignore-env"): {"TR-ENV"}, ("meta", "ignore-env"): {"TR-ENV"},
    ("ctxo", "not-prefix"): {"TR-PREFIX"}, ("ctxo", "not-maximal"): {"TR-MAXIMAL"},
    # Unavoidable: the response dropping an item that fits is also not maximal.
    ("ctxo", "always-truncate"): {"TR-VERBATIM", "TR-MAXIMAL"},
    ("budget", "used-over"): {"B-USED"},
    # tokenBudget 0 or 1 (what a bounds-less schema gets from the generator) cannot be honoured:
    # reporting it unclamped also reports used > requested. Above the maximum it is B-CLAMP alone.
    ("budget", "no-clamp"): {"B-CLAMP", "B-USED"}, ("budget", "estimate-half"): {"B-ESTIMATE"},
    # With a --root, shifted lines also make the snippets disagree with the file.
    ("ctxo", "zero-based"): {"POS-BASE", "POS-UTF16"}, ("budget", "zero-based"): {"POS-BASE", "POS-UTF16"},
    ("ctxo", "abs-path"): {"POS-PATH"}, ("budget", "abs-path"): {"POS-PATH"}, ("budget", "byte-cols"): {"POS-UTF16"},
}
failures = 0
only = sys.argv[1:]
for (profile, defect), want in EXPECT.items():
    if only and (defect or "conformant") not in only: continue
    got, seen = run(profile, defect)
    status = "ok" if got == want else "FAIL"
    if got != want: failures += 1
    print("%-4s %-16s %-16s want %-28s got %s (forms %s)" % (status, profile, defect or "conformant", sorted(want), sorted(got), sorted(seen)))
print("reference smoke: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
PY
