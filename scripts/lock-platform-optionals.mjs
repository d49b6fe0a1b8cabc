#!/usr/bin/env node
/**
 * Keeps `npm ci` working on the registry this project installs from.
 *
 * Some native packages (litesvm, @triton-one/yellowstone-grpc) list per-platform optional
 * dependencies that this registry does not carry (they answer 404). `npm install` then leaves them
 * out of package-lock.json, and `npm ci` refuses the lockfile as "Missing: <pkg>@ from lock file".
 * This script records each missing platform package in the lockfile with its os/cpu/libc
 * constraints, so npm sees it, finds it does not match this platform and skips it without a fetch.
 *
 * Run after any `npm install` that changes the lockfile:  node scripts/lock-platform-optionals.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

/** os / cpu / libc from the conventional platform suffix of a package name. */
function platformOf(name) {
  const m = /-(darwin|linux|win32|android|freebsd)-(x64|arm64|ia32)(?:-(gnu|musl|msvc))?$/.exec(name);
  if (!m) return null;
  const out = { cpu: [m[2]], os: [m[1]] };
  if (m[3] === 'gnu') out.libc = ['glibc'];
  if (m[3] === 'musl') out.libc = ['musl'];
  return out;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[hoisted] = { version, optional: true, ...platform };
    added++;
  }
}
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platform-optionals: recorded ${added} platform package(s) missing from the lockfile`);
