/**
 * What keeps `npm ci` quiet on a clean clone (docs/development.md#dependencies), read from
 * package.json and the lockfile (the install itself needs the registry, which tests never reach):
 * every package with an install script is decided in `allowScripts` (npm 11 lists the undecided
 * ones on every install), and every package that wants `@solana/kit` as a peer accepts ours or is
 * told to by an override (npm warns ERESOLVE otherwise), `@x402/svm` taking our program clients.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../helpers/import-layers.ts';

const ROOT = repositoryRoot(import.meta.url);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
  overrides: Record<string, unknown>;
};
type LockEntry = {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  hasInstallScript?: boolean;
  peerDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const KIT_MAJOR = Number(/(\d+)/.exec(pkg.dependencies['@solana/kit']!)![1]);

/** Whether a peer range accepts kit's major version; the forms the lockfile holds today (`^N...`, `>=N...`). */
function acceptsMajor(range: string, major: number): boolean {
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*(\d+)/.exec(part);
    if (!m) throw new Error(`a peer range of a form this test does not read: "${range}"`);
    return m[1] === '^' ? Number(m[2]) === major : major >= Number(m[2]);
  });
}

describe('a quiet npm ci', () => {
  it('every package with an install script is decided in allowScripts', () => {
    const scripted = Object.entries(lock.packages)
      .filter(([path, e]) => path !== '' && e.hasInstallScript)
      .map(([path]) => nameOf(path));
    expect(scripted.length).toBeGreaterThan(0);
    expect([...new Set(scripted)].filter((name) => !(name in pkg.allowScripts))).toEqual([]);
  });

  it('every package wanting @solana/kit as a peer accepts ours, or is overridden to', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([, e]) => e.peerDependencies?.['@solana/kit'] !== undefined)
      .filter(([, e]) => !acceptsMajor(e.peerDependencies!['@solana/kit']!, KIT_MAJOR))
      .map(([path]) => nameOf(path))
      .filter((name) => !JSON.stringify(pkg.overrides[name] ?? {}).includes('@solana/kit'));
    expect(refusing).toEqual([]);
  });

  // Without the addresses npm ci asks the registry for every package's metadata even with a warm
  // cache (scripts/fix-lockfile.mjs); an `npm install` under a user npmrc that omits them drops them all.
  it('every registry package has its tarball address, and the project npmrc keeps them', () => {
    const fetched = Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.link && e.integrity !== undefined);
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.filter(([, e]) => !e.resolved?.startsWith('https://registry.npmjs.org/')).map(([path]) => path)).toEqual([]);
    expect(readFileSync(join(ROOT, '.npmrc'), 'utf8')).toMatch(/^omit-lockfile-registry-resolved=false$/m);
  });

  it('@x402/svm uses our program clients: no copies of its own for an older kit', () => {
    expect(Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/@x402/svm/node_modules/@solana-program/'))).toEqual([]);
  });
});
