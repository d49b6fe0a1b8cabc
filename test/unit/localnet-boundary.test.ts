/**
 * The boundary between the service and the localnet package: the package imports nothing from
 * the service (it cannot depend on the app that depends on it), and the service reaches the
 * package only from main.ts through a dynamic import, so mainnet mode never loads it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGE = join(ROOT, 'packages/localnet');
const IMPORT_RE = /(?:from\s+|import\s*\(\s*)'([^']+)'/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT_RE)].map((m) => m[1]!);
}

describe('localnet package boundary', () => {
  it('the package imports nothing outside itself by path', () => {
    const escaping = tsFiles(PACKAGE).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.') && relative(PACKAGE, resolve(dirname(file), spec)).startsWith('..'))
        .map((spec) => `${relative(ROOT, file)}: ${spec}`),
    );
    expect(escaping).toEqual([]);
  });

  it('the service names the package only in main.ts, as a dynamic import', () => {
    const users = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'workers'))]
      .filter((file) => readFileSync(file, 'utf8').includes('@solana-x402-intel/localnet'))
      .map((file) => relative(ROOT, file));
    expect(users).toEqual(['src/main.ts']);
    expect(readFileSync(join(ROOT, 'src/main.ts'), 'utf8')).not.toMatch(/^import[^(]*'@solana-x402-intel\/localnet'/m);
  });
});
