/**
 * Link checks of the docs: every relative link in README.md and docs/ (and a workspace
 * package's README) names a file or folder of the repository and, with `#anchor`, a heading or
 * `<a id>` of that Markdown file; every `docs/NAME.md#anchor` a source comment cites exists too.
 * Anchors follow GitHub's heading slugs, so the links also work on GitHub.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Folders whose files may cite docs (source, tests, tools). */
const CITING_DIRS = ['src', 'workers', 'bench', 'test', 'scripts', 'packages'] as const;
const CITING_FILE_RE = /\.(?:ts|mts|mjs|js)$/;
const CITATION_RE = /\bdocs\/([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?/g;
const LINK_RE = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const SCHEME_RE = /^[a-z][a-z0-9+.-]*:/i;

/** Markdown files whose links are checked, relative to `root`. */
export function docFiles(root: string): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`)
    : [];
  const packages = existsSync(join(root, 'packages'))
    ? readdirSync(join(root, 'packages'))
        .map((p) => `packages/${p}/README.md`)
        .filter((f) => existsSync(join(root, f)))
    : [];
  return ['README.md', ...docs.sort(), ...packages.sort()];
}

/** Markdown without fenced code blocks and inline code, where link syntax is only text. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const plain = heading.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return plain
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown document offers: heading slugs (repeats numbered) and `<a id>`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const [, heading = ''] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id = ''] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Why `target` (a path with an optional `#anchor`, relative to `fromFile`) does not resolve, or null. */
function targetProblem(root: string, fromFile: string, target: string): string | null {
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? join(root, fromFile) : resolve(dirname(join(root, fromFile)), decodeURIComponent(pathPart));
  if (!path.startsWith(root) || !existsSync(path)) return `${target}: no such file in the repository`;
  if (anchor === undefined || anchor === '') return null;
  if (statSync(path).isDirectory() || !path.endsWith('.md')) return `${target}: an anchor needs a Markdown file`;
  return anchorsOf(readFileSync(path, 'utf8')).has(anchor) ? null : `${target}: no heading or anchor "#${anchor}" in ${relative(root, path)}`;
}

/** Broken relative links of one Markdown document (`file` relative to `root`). */
export function linkProblems(root: string, file: string, text: string): string[] {
  const problems: string[] = [];
  for (const [, target = ''] of prose(text).matchAll(LINK_RE)) {
    if (SCHEME_RE.test(target) || target.startsWith('//')) continue;
    const problem = targetProblem(root, file, target);
    if (problem) problems.push(`${file}: link ${problem}`);
  }
  return problems;
}

/** Broken relative links of every checked document. */
export function brokenLinks(root: string): string[] {
  return docFiles(root).flatMap((file) => linkProblems(root, file, readFileSync(join(root, file), 'utf8')));
}

function sourceFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true }).flatMap((d) => {
    if (d.name === 'node_modules' || d.name.startsWith('.')) return [];
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) return sourceFiles(root, rel);
    return CITING_FILE_RE.test(d.name) ? [rel] : [];
  });
}

/** `docs/NAME.md#anchor` citations in source files that name no existing document or anchor. */
export function brokenCitations(root: string): string[] {
  const problems: string[] = [];
  for (const file of CITING_DIRS.flatMap((d) => sourceFiles(root, d))) {
    for (const [cited, name = '', anchor] of readFileSync(join(root, file), 'utf8').matchAll(CITATION_RE)) {
      const problem = targetProblem(root, 'README.md', `docs/${name}${anchor ? `#${anchor}` : ''}`);
      if (problem) problems.push(`${file}: cites ${cited}: ${problem}`);
    }
  }
  return problems;
}
