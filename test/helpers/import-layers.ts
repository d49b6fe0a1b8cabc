/**
 * The import graph of the service's own sources and the rules it must keep: no file imports a
 * file of a higher layer, no files import each other in a loop, and each outside library is
 * imported only from the place that owns it. Every kind of import counts (`import type`,
 * re-exports, dynamic `import()` and `typeof import()`), as TypeScript's pre-processor lists them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

/** One layer: the files it holds, as repository paths (`dir/` holds a folder, else one file). */
export interface Layer {
  readonly name: string;
  readonly paths: readonly string[];
  /**
   * The layer's own order, for a layer of folders (src/x402/): rows top first, a file imports its
   * own folder and the rows below; the folders of one row are siblings and import none of each other.
   */
  readonly inner?: readonly (readonly Layer[])[];
}

export interface ImportRules {
  /** Top layer first; a file may import its own layer and the layers below it. */
  readonly layers: readonly Layer[];
  /** Parts outside the layering (a folder, or the package it becomes), and the only files that may import them. */
  readonly apart: readonly { readonly place: string; readonly packageName: RegExp; readonly importers: readonly string[] }[];
  /** Outside library -> the place (file or `dir/`) that alone may import it; an unlisted library is a problem. */
  /** The one place (file or folder) allowed to import each library; a list only where two programs each need it. */
  readonly libraries: Readonly<Record<string, string | readonly string[]>>;
}

/** One import of one file: what it names, and the repository path it resolves to (null: an outside library). */
interface Edge {
  readonly specifier: string;
  readonly target: string | null;
}

const within = (file: string, place: string): boolean => (place.endsWith('/') ? file.startsWith(place) : file === place);

/** `@scope/name/sub` and `name/sub` -> the package name. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Resolves a relative specifier against the known files; a target outside them (e.g. package.json) is kept as is. */
function resolveRelative(file: string, specifier: string, known: ReadonlySet<string>): string {
  const base = posix.normalize(posix.join(posix.dirname(file), specifier));
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => known.has(c)) ?? base;
}

function edgesOf(file: string, source: string, known: ReadonlySet<string>): Edge[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => !s.startsWith('node:'))
    .map((s) => ({ specifier: s, target: s.startsWith('.') ? resolveRelative(file, s, known) : null }));
}

/** Where `file` sits inside a layer with an order of its own: its row and the folder's place in it, or null. */
function innerPlace(layer: Layer, file: string): { readonly row: number; readonly part: Layer } | null {
  for (const [row, parts] of (layer.inner ?? []).entries()) {
    const part = parts.find((p) => p.paths.some((path) => within(file, path)));
    if (part) return { row, part };
  }
  return null;
}

/** The breach of an import between two files of one layer that has an order of its own, or null. */
function innerProblem(layer: Layer, file: string, specifier: string, target: string): string | null {
  if (!layer.inner) return null;
  const from = innerPlace(layer, file);
  const to = innerPlace(layer, target);
  if (!from || !to || from.part === to.part) return null;
  const names = `${layer.name}/${from.part.name} may not import ${layer.name}/${to.part.name}`;
  if (to.row < from.row) return `${file} imports '${specifier}': ${names} (a higher layer)`;
  if (to.row === from.row) return `${file} imports '${specifier}': ${names} (a sibling)`;
  return null;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** Every breach of `rules` in `files` (repository path -> source), one sentence each; empty when the graph is clean. */
export function checkImports(files: ReadonlyMap<string, string>, rules: ImportRules): string[] {
  const problems: string[] = [];
  const known = new Set(files.keys());
  const isApart = (f: string) => rules.apart.some((a) => within(f, a.place));
  const layerOf = (f: string) => rules.layers.findIndex((l) => l.paths.some((p) => within(f, p)));
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    if (isApart(file)) continue;
    const from = layerOf(file);
    if (from < 0) problems.push(`${file} is in no layer: place it in the layer map`);
    else if (rules.layers[from]!.inner && !innerPlace(rules.layers[from]!, file))
      problems.push(`${file} is in no folder of ${rules.layers[from]!.name}: place it in the layer map`);
    const targets: string[] = [];
    for (const { specifier, target } of edgesOf(file, source, known)) {
      const apart = rules.apart.find((a) => (target === null ? a.packageName.test(packageOf(specifier)) : within(target, a.place)));
      if (apart) {
        if (!apart.importers.includes(file)) problems.push(`${file} imports '${specifier}': only ${apart.importers.join(', ')} may import ${apart.place}`);
        continue;
      }
      if (target === null) {
        const owner = rules.libraries[packageOf(specifier)];
        if (owner === undefined) problems.push(`${file} imports '${specifier}': the library has no owner in the library map`);
        else if (![owner].flat().some((o) => within(file, o)))
          problems.push(`${file} imports '${specifier}': only ${[owner].flat().join(', ')} may import ${packageOf(specifier)}`);
        continue;
      }
      if (!known.has(target)) continue;
      if (target !== file) targets.push(target);
      const to = layerOf(target);
      if (from >= 0 && to >= 0 && to < from)
        problems.push(`${file} imports '${specifier}': ${rules.layers[from]!.name} may not import ${rules.layers[to]!.name} (a higher layer)`);
      const inner = from >= 0 && from === to ? innerProblem(rules.layers[from]!, file, specifier, target) : null;
      if (inner) problems.push(inner);
    }
    graph.set(file, targets);
  }
  for (const c of circles(graph)) problems.push(`import circle: ${c.join(' -> ')}`);
  return problems;
}

/** Every `.ts` file under `dirs` of the repository at `root`, as repository path -> source. */
export function readSources(root: string, dirs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) out.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
  return out;
}

/** The repository root, from a test file's URL. */
export function repositoryRoot(testUrl: string): string {
  // The nearest folder with a package.json above the test: the repository, at whatever depth the test sits under test/.
  let dir = dirname(new URL(testUrl).pathname);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
