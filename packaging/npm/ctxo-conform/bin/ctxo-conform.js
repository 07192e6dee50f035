#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The `ctxo-conform` command of the npm package: runs the native binary of this platform's package
// (@ctxo-conform/<platform>-<arch>, which npm installs as the optionalDependency whose os/cpu
// match) with stdio inherited, and ends as it ends: its exit code, or the signal that stopped it.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

// The platforms a binary package is published for (package.json's optionalDependencies).
const PUBLISHED = ['linux-x64'];

function fail(message) {
  process.stderr.write(`ctxo-conform: ${message}\n`);
  process.exit(2);
}

function binary() {
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@ctxo-conform/${platform}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch (e) {
    if (!PUBLISHED.includes(platform))
      fail(`no prebuilt binary for ${platform} (published: ${PUBLISHED.join(', ')}); build it from source ` +
           '(https://github.com/ctxo/ctxo-conform) or run it in a linux-x64 container');
    fail(`the package ${pkg}, which holds the binary, is not installed: npm skips optional dependencies with ` +
         '--omit=optional or --no-optional; install ctxo-conform without that flag');
  }
  return path.join(dir, 'bin', 'ctxo-conform');
}

// The binary runs in a process group of its own and gets each stop signal once, from here:
// ctxo-conform winds down and writes its reports on the first SIGINT/SIGTERM/SIGHUP and stops at
// once on a second, so a Ctrl-C must not reach it both from the terminal and from the launcher.
const child = spawn(binary(), process.argv.slice(2), { stdio: 'inherit', detached: true });
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => child.kill(signal);
for (const s of forwarded) process.on(s, forward);
child.on('error', (e) => fail(`cannot run ${child.spawnfile}: ${e.message}`));
child.on('exit', (code, signal) => {
  if (signal) {
    for (const s of forwarded) process.removeListener(s, forward);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
