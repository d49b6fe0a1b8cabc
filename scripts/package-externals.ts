/**
 * The esbuild rule shared by the server's and the CLI's bundles: which npm imports are bundled and
 * which stay outside, loaded by Node from node_modules. A package left outside is looked up from
 * the bundle's own directory, not from the module that imported it, so a bundled package whose
 * dependency sits in its own nested node_modules (another version than the top-level one) would
 * get the top-level version: @x402/extensions carries jose 5 while the tree's jose is 6, and the
 * CLI's bundle that left jose outside failed every x402 receipt's JWS signature. Such a dependency
 * is bundled instead, from the copy its importer would load.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

/** The package name of a bare import (`@scope/name/sub` -> `@scope/name`). */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The directory Node finds package `name` in from `fromDir` (the nearest node_modules holding it, links followed), or null. */
function packageDirFrom(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Bare imports stay external, except `own` and `bundled` packages, and a package the bundle's
 * directory (`outDir`) would find in another place than its importer does.
 */
export function packageExternals(o: { readonly own: ReadonlySet<string>; readonly bundled: ReadonlySet<string>; readonly outDir: string }): Plugin {
  return {
    name: 'package-externals',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const name = packageNameOf(args.path);
        if (o.own.has(name) || o.bundled.has(name)) return undefined;
        const fromImporter = packageDirFrom(name, args.resolveDir);
        const fromBundle = packageDirFrom(name, o.outDir);
        // Bundled only when both find it and in different places: a Node built-in without its
        // prefix is found by neither, and an out dir outside the tree finds no package at all.
        if (fromImporter === null || fromBundle === null || fromImporter === fromBundle) return { path: args.path, external: true };
        return undefined;
      });
    },
  };
}
