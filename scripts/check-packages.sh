#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The packages a user installs, checked as a user meets them (issue 32). From one
# -DCTXO_PORTABLE=ON Release build (its ctxo-conform target built): the npm tarballs
# (scripts/pack-npm.sh) and the .deb (cpack -G DEB); then, each from outside the build tree and
# with CTXO_SCHEMAS_DIR unset: the tarballs installed into an empty project (npm install, no
# registry) and the .deb extracted (dpkg-deb -x), `--version` and a run on an example server
# ending in verdict pass; the binary needing no library but libc's; the schemas it uses being
# the package's; --url without libcurl a usage error naming the package to install.
#   scripts/check-packages.sh BUILD_DIR EXAMPLE_SERVER [OUT_DIR]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: scripts/check-packages.sh BUILD_DIR EXAMPLE_SERVER [OUT_DIR]}" && pwd)"
server="$(cd "$(dirname "${2:?the example server binary}")" && pwd)/$(basename "$2")"
out="${3:-$build/packages}"
unset CTXO_SCHEMAS_DIR
rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check-packages: $*" >&2; exit 1; }

version="$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")"
mapfile -t tarballs < <(bash "$src/scripts/pack-npm.sh" "$build" "$out")
[ "${#tarballs[@]}" = 2 ] || fail "pack-npm.sh made ${#tarballs[@]} tarball(s), not 2"
(cd "$build" && cpack -G DEB -B "$out/deb" >/dev/null)
deb="$(ls "$out"/deb/*.deb)"

# What the binary needs: libc's libraries and libgcc_s (a required package of every Debian and
# Ubuntu image), no libstdc++, libcurl, pugixml or RE2; and glibc 2.35 at most (Ubuntu 22.04).
needs_only_libc() {
  local needed
  needed="$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  echo "$needed" | grep -Evq '^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libpthread\.so\.0|libdl\.so\.2|ld-linux.*)$' &&
    fail "$1 needs more than libc: $(echo "$needed" | tr '\n' ' ')"
  newest="$(objdump -T "$1" | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)"
  [ "$(printf '%s\n' "$newest" GLIBC_2.35 | sort -V | tail -1)" = GLIBC_2.35 ] ||
    fail "$1 needs $newest: it would not start on Ubuntu 22.04 (glibc 2.35)"
}

# `--version`, a run on the example server (verdict pass), the schemas' source and no libcurl:
# BIN is run from DIR (outside the build tree) through RUN (a command prefix, e.g. npx).
check_installed() {
  local what="$1" dir="$2" bin="$3"
  shift 3
  local run=("$@")
  (cd "$dir" && "${run[@]}" --version) | grep -qx "ctxo-conform $version (commit [0-9a-z]*)" ||
    fail "$what: --version does not print ctxo-conform $version (commit ...): $(cd "$dir" && "${run[@]}" --version)"
  local said
  said="$(cd "$dir" && "${run[@]}" --seed 1 --no-cases --json "$dir/report.json" -- "$server" 2>&1)" ||
    fail "$what: the run on $server did not pass: $said"
  # Without its schemas a run still passes, with the envelope and host checks off and a note.
  ! grep -q "cannot find the schemas directory" <<<"$said" || fail "$what: the binary did not find its schemas: $said"
  grep -Eq '"verdict": *"pass"' "$dir/report.json" || fail "$what: the report's verdict is not pass"
  verdict_at=$(date +%s%N)
  needs_only_libc "$bin"
  # --url with no libcurl to load: a usage error (exit 2) naming the package, no crash.
  local code=0 err
  err="$(cd "$dir" && CTXO_LIBCURL=libctxo-absent.so.4 "${run[@]}" --url http://127.0.0.1:9/mcp 2>&1 >/dev/null)" || code=$?
  [ "$code" = 2 ] && grep -q "libcurl4" <<<"$err" || fail "$what: --url without libcurl gave exit $code: $err"
  echo "== $what: --version, verdict pass, needs $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')($newest)"
}

# npm: both tarballs into an empty project, no registry. The platform package is this machine's,
# named as scripts/pack-npm.sh names it.
case "$(uname -m)" in x86_64 | amd64) cpu=x64 ;; aarch64 | arm64) cpu=arm64 ;; *) fail "unsupported CPU $(uname -m)" ;; esac
platform="@ctxo-conform/linux-$cpu"
start=$(date +%s%N)
mkdir "$work/npm"
(cd "$work/npm" && npm install --offline --no-audit --no-fund --loglevel=error "${tarballs[@]}" >/dev/null)
check_installed npm "$work/npm" "$work/npm/node_modules/$platform/bin/ctxo-conform" npx --no-install ctxo-conform
npm_ms=$(( (verdict_at - start) / 1000000 ))

# .deb: its declared dependencies, then its files extracted.
dpkg-deb -f "$deb" Depends | grep -q 'libc6' || fail "$deb declares no libc6 dependency"
dpkg-deb -f "$deb" Recommends | grep -q 'libcurl4' || fail "$deb does not recommend libcurl4"
dpkg-deb -x "$deb" "$work/deb"
test -f "$work/deb/usr/share/ctxo-conform/schemas/profiles/ctxo.json" || fail "$deb has no /usr/share/ctxo-conform/schemas"
check_installed deb "$work/deb" "$work/deb/usr/bin/ctxo-conform" "$work/deb/usr/bin/ctxo-conform"

# The schemas it used were the package's: without them it finds none (no build-tree fallback).
mv "$work/deb/usr/share/ctxo-conform" "$work/deb/usr/share/moved"
said="$("$work/deb/usr/bin/ctxo-conform" --seed 1 --no-cases -- "$server" 2>&1)" || true
grep -q "cannot find the schemas directory" <<<"$said" || fail "the .deb's binary found schemas not its own: $said"

# A minimal root (where unshare and chroot may be used: root): the npm package's binary with libc's
# libraries alone (and the example server with its own), no libcurl, no build tree, no schemas
# but the package's. It checks the stdio server, and --url says what to install.
root="$work/root"
mkdir -p "$root/proc" "$root/tmp" "$root/server"
cp -r "$work/npm/node_modules/$platform" "$root/pkg"
cp "$server" "$root/server/"
for lib in $( (ldd "$root/pkg/bin/ctxo-conform"; ldd "$server") | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
done
if unshare --mount --propagation private true 2>/dev/null; then
  in_root() { unshare --mount --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot "$@"' "$root" "$root" /pkg/bin/ctxo-conform "$@"; }
  said="$(in_root --seed 1 --no-cases -- "/server/$(basename "$server")" 2>&1)" || fail "minimal root: the run did not pass: $said"
  ! grep -q "cannot find the schemas directory" <<<"$said" || fail "minimal root: no schemas found: $said"
  code=0
  said="$(in_root --url http://127.0.0.1:9/mcp 2>&1)" || code=$?
  [ "$code" = 2 ] && grep -q "libcurl4" <<<"$said" || fail "minimal root: --url without libcurl gave exit $code: $said"
  echo "== minimal root (libc, libm, libgcc_s, ld-linux; libstdc++ for the example server only): verdict pass; --url: $said"
else
  echo "== minimal root: skipped (unshare --mount needs root)"
fi

echo "== packages: $(for f in "${tarballs[@]}" "$deb"; do printf '%s %s KB; ' "$(basename "$f")" $(( $(stat -c %s "$f") / 1024 )); done)npm install to verdict ${npm_ms} ms"
