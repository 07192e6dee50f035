#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The npm packages, from a Release build configured with -DCTXO_PORTABLE=ON (its ctxo-conform
# target built): the launcher `ctxo-conform` (packaging/npm/ctxo-conform) and this machine's
# platform package `@ctxo-conform/<os>-<cpu>` (packaging/npm/platform: the stripped binary in bin/
# and the schemas in share/ctxo-conform/schemas, the layout `cmake --install` makes, where the
# binary looks for them). Both carry the version of CMake's project(). Prints the two tarballs.
#   scripts/pack-npm.sh BUILD_DIR [OUT_DIR]      (OUT_DIR defaults to BUILD_DIR/npm)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:?usage: scripts/pack-npm.sh BUILD_DIR [OUT_DIR]}"
build="$(cd "$build" && pwd)"
out="${2:-$build/npm}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

grep -q '^CTXO_PORTABLE:BOOL=ON$' "$build/CMakeCache.txt" ||
  { echo "pack-npm: $build is not a -DCTXO_PORTABLE=ON build (its binary would need the build machine's libraries and schemas)" >&2; exit 2; }
# The one version number: CMake's project(VERSION), as CPack (the .deb) has it.
version="$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")"
[ -n "$version" ] || { echo "pack-npm: no CPACK_PACKAGE_VERSION in $build/CPackConfig.cmake" >&2; exit 2; }
case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "pack-npm: unsupported OS $(uname -s)" >&2; exit 2 ;; esac
case "$(uname -m)" in x86_64 | amd64) cpu=x64 ;; aarch64 | arm64) cpu=arm64 ;; *) echo "pack-npm: unsupported CPU $(uname -m)" >&2; exit 2 ;; esac

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# The platform package: what `cmake --install` installs, stripped.
cmake --install "$build" --prefix "$stage/platform" --strip >/dev/null
cp "$src/packaging/npm/platform/package.json" "$src/packaging/npm/platform/README.md" "$stage/platform/"
cp -r "$src/packaging/npm/ctxo-conform" "$stage/launcher"
# Name, os, cpu and version filled in; every optionalDependency at the same version.
node - "$stage" "$version" "$os" "$cpu" <<'JS'
const fs = require('fs');
const [stage, version, os, cpu] = process.argv.slice(2);
const edit = (file, change) => {
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  change(pkg);
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
};
edit(`${stage}/platform/package.json`, (p) => {
  p.name = `@ctxo-conform/${os}-${cpu}`;
  p.description = p.description.replace('OS-CPU', `${os}-${cpu}`);
  p.version = version;
  p.os = [os];
  p.cpu = [cpu];
});
for (const f of [`${stage}/platform/README.md`]) fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replaceAll('OS-CPU', `${os}-${cpu}`));
edit(`${stage}/launcher/package.json`, (p) => {
  p.version = version;
  for (const k of Object.keys(p.optionalDependencies)) p.optionalDependencies[k] = version;
});
JS
for dir in launcher platform; do
  (cd "$stage/$dir" && npm pack --silent --pack-destination "$out") | sed "s|^|$out/|"
done
