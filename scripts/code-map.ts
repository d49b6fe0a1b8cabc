/**
 * The README's "Map of the code" names real paths: every row of its map, and every path it spells
 * from a top-level folder (`src/x402/flow/paid-caller.ts`, `dist/server/`), exists in the repository or,
 * under `dist/`, is written by the build (`npm run build`); a path in a row's description may also
 * be relative to that row (`src/fixture/` under `packages/localnet/`). `*` stands for any name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { SERVER_ENTRY_POINTS, SERVER_OUT_DIR } from './build-server.ts';
import { WEB_OUT_DIR } from './build-web.ts';

const SECTION_HEADING = '## Map of the code';
/** Folders a path in the map may start from (what the build writes is under dist/). */
const TOP_DIRS = ['src', 'workers', 'web', 'packages', 'scripts', 'bench', 'test', 'docs', 'bin', 'dist'];
const PATH_RE = new RegExp(`(?<![\\w./-])((?:${TOP_DIRS.join('|')})/[\\w.*-]*(?:/[\\w.*-]+)*/?)`, 'g');

/** The section of `readme` under the code map heading, up to the next `## ` heading. */
export function codeMapSection(readme: string): string {
  const start = readme.indexOf(`${SECTION_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${SECTION_HEADING}" section`);
  const end = readme.indexOf('\n## ', start + SECTION_HEADING.length);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** What `npm run build` writes, as repository paths: its output folders and the server's entry bundles. */
export function builtPaths(root: string): string[] {
  const server = relative(root, SERVER_OUT_DIR);
  return [`${relative(root, WEB_OUT_DIR)}/`, `${server}/`, ...Object.keys(SERVER_ENTRY_POINTS).map((name) => `${server}/${name}.js`)];
}

/** Whether `path` (a file, `dir/`, or with `*` in its last part) names something under `root`. */
function exists(root: string, path: string): boolean {
  const clean = path.replace(/\/$/, '');
  if (!clean.includes('*')) return existsSync(join(root, clean));
  const dir = join(root, dirname(clean));
  const pattern = new RegExp(
    `^${basename(clean)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(dir) && readdirSync(dir).some((name) => pattern.test(name));
}

/** Problems of the map's paths: each names the path and what is wrong. */
export function codeMapProblems(root: string, readme = readFileSync(join(root, 'README.md'), 'utf8')): string[] {
  const built = builtPaths(root);
  const problems: string[] = [];
  let row = '';
  for (const line of codeMapSection(readme).split('\n')) {
    // A map row starts at the line's first column; its continuation lines are indented.
    const first = /^([\w.-]+(?:\/[\w.-]+)*\/?)\s{2,}/.exec(line)?.[1];
    if (first) row = first;
    for (const [, path = ''] of line.matchAll(PATH_RE)) {
      if (path.startsWith('dist/')) {
        if (!built.includes(path)) problems.push(`README.md code map: ${path} is not written by npm run build (it writes ${built.join(', ')})`);
      } else if (!exists(root, path) && !(row && exists(root, join(row, path)))) {
        problems.push(`README.md code map: ${path} does not exist`);
      }
    }
    // A row under a top-level folder was checked above; any other row is checked here.
    if (first && !TOP_DIRS.includes(first.split('/')[0]!) && !exists(root, first)) problems.push(`README.md code map: the row ${first} does not exist`);
  }
  return [...new Set(problems)];
}
