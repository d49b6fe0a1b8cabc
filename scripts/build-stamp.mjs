/**
 * Whether a build is the build of the sources as they are now: each build (build-server.ts,
 * build-web.ts) writes `build-stamp.json` beside its output with the SHA-256 of every file it read
 * (esbuild's own list of inputs, npm packages bundled into the page included); `npm start`
 * (scripts/start.mjs) builds again only when one of them changed or is gone. Plain JavaScript, so
 * the launcher reads it without a TypeScript loader. A new file only enters a build through an
 * import in a file it already read, whose hash then changes.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The stamp's name in a build's output directory. */
export const BUILD_STAMP_FILE = 'build-stamp.json';

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Writes the stamp of `inputs` (paths relative to `root`) into `outDir`. */
export function writeBuildStamp(outDir, root, inputs) {
  const hashes = Object.fromEntries([...new Set(inputs)].sort().map((input) => [input, sha256(join(root, input))]));
  writeFileSync(join(outDir, BUILD_STAMP_FILE), `${JSON.stringify({ inputs: hashes }, null, 1)}\n`);
}

/** True when `outDir` holds a build whose every input under `root` is unchanged. */
export function isBuildFresh(outDir, root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outDir, BUILD_STAMP_FILE), 'utf8'));
  } catch {
    return false;
  }
  const inputs = Object.entries(stamp?.inputs ?? {});
  if (inputs.length === 0) return false;
  try {
    return inputs.every(([input, hash]) => sha256(join(root, input)) === hash);
  } catch {
    return false;
  }
}
