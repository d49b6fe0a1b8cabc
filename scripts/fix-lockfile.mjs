#!/usr/bin/env node
/**
 * Keeps `npm ci` working, and quick, on the registry this project installs from. Two fixes:
 *
 * 1. Platform packages the registry lacks. Some native packages (litesvm, @triton-one/yellowstone-grpc) list per-platform optional
 * dependencies that this registry does not carry (they answer 404). `npm install` then leaves them
 * out of package-lock.json, and `npm ci` refuses the lockfile as "Missing: <pkg>@ from lock file".
 * This script records each missing platform package in the lockfile with its os/cpu/libc
 * constraints, so npm sees it, finds it does not match this platform and skips it without a fetch.
 *
 * 2. Tarball addresses. With `omit-lockfile-registry-resolved` set (as in some users' npmrc), npm
 *    writes no `resolved` field, and `npm ci` then asks the registry for every package's metadata
 *    (808 requests here) before it can find the tarball, even with every tarball in its cache: about
 *    18 s of CPU per install. With the address beside the integrity, a warm cache installs with no
 *    request at all. The address is the registry's fixed tarball path (npm rewrites its host to the
 *    configured registry, `replace-registry-host`), and the integrity still checks every byte.
 *    The project's .npmrc turns the omission off, so npm keeps what this writes.
 *
 * Run after any `npm install` that changes the lockfile:  node scripts/fix-lockfile.mjs
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

const REGISTRY_TARBALLS = 'https://registry.npmjs.org';
let addressed = 0;
for (const [path, pkg] of Object.entries(packages)) {
  // Links (the workspace) and platform entries recorded above have no tarball of their own here.
  if (path === '' || pkg.link || pkg.resolved || !pkg.version || !pkg.integrity) continue;
  const name = pkg.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const resolved = `${REGISTRY_TARBALLS}/${name}/-/${name.split('/').pop()}-${pkg.version}.tgz`;
  // npm's own order: the address right after the version, every other field where it was.
  packages[path] = Object.fromEntries(Object.entries(pkg).flatMap((e) => (e[0] === 'version' ? [e, ['resolved', resolved]] : [e])));
  addressed++;
}

writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`fix-lockfile: recorded ${added} platform package(s) missing from the lockfile, ${addressed} tarball address(es)`);
