#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# That a release's version numbers agree (the first job of .github/workflows/release.yml, and a
# maintainer's check before tagging, see RELEASING.md): the tag vX.Y.Z; CMake's
# project(VERSION), which the binary, the .deb and the npm packages take; the npm package
# templates (packaging/npm/*/package.json: 0.0.0, the placeholder scripts/pack-npm.sh fills in,
# or X.Y.Z); and a CHANGELOG.md section "## X.Y.Z" (the release's notes). With DIR, also the
# packages in it: every npm tarball's version and its optionalDependencies' versions, and every
# .deb's Version. Prints the version; exits 1 on the first disagreement.
#   scripts/check-version.sh TAG [DIR]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
tag="${1:?usage: scripts/check-version.sh TAG [DIR]}"
dir="${2:-}"
fail() { echo "check-version: $*" >&2; exit 1; }

[[ "$tag" =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]] || fail "tag '$tag' is not vMAJOR.MINOR.PATCH"
version="${BASH_REMATCH[1]}"
cmake_version="$(sed -n 's/^project(ctxo_conform VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
[ "$cmake_version" = "$version" ] ||
  fail "tag $tag but CMakeLists.txt has project(ctxo_conform VERSION ${cmake_version:-?}): bump it (RELEASING.md)"
for f in "$src"/packaging/npm/*/package.json; do
  v="$(node -p "require(process.argv[1]).version" "$f")"
  [ "$v" = 0.0.0 ] || [ "$v" = "$version" ] ||
    fail "${f#"$src"/} has version $v: keep 0.0.0 (scripts/pack-npm.sh writes project()'s) or $version"
done
grep -Eq "^## \[?v?${version//./\\.}\]?([[:space:]]|$)" "$src/CHANGELOG.md" ||
  fail "CHANGELOG.md has no '## $version' section (rename '## Unreleased', RELEASING.md)"

if [ -n "$dir" ]; then
  shopt -s nullglob
  tarballs=("$dir"/*.tgz)
  debs=("$dir"/*.deb)
  [ ${#tarballs[@]} -gt 0 ] || fail "no npm tarball in $dir"
  for t in "${tarballs[@]}"; do
    tar -xOzf "$t" package/package.json | node -e '
      const [file, want] = process.argv.slice(1);
      const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const bad = [];
      if (p.version !== want) bad.push(`version ${p.version}`);
      for (const [k, v] of Object.entries(p.optionalDependencies || {})) if (v !== want) bad.push(`${k}@${v}`);
      if (bad.length) { console.error(`check-version: ${file} (${p.name}): ${bad.join(", ")}, not ${want}`); process.exit(1); }
    ' "$(basename "$t")" "$version"
  done
  for d in "${debs[@]}"; do
    v="$(dpkg-deb -f "$d" Version)"
    [ "$v" = "$version" ] || fail "$(basename "$d") has Version $v, not $version"
  done
fi
echo "$version"
