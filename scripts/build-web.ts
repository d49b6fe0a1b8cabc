/**
 * Builds the storefront's browser assets (`npm run build:web`; runs before `npm start` and
 * `npm test`): esbuild bundles and minifies web/app.ts (with everything it imports, npm packages
 * included: nothing is fetched from elsewhere at run time) and web/app.css into dist/web/ under
 * content-hashed names, writes a Brotli and a gzip variant of each, and a manifest the service
 * reads at start (src/storefront/web-assets.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { writeBuildStamp } from './build-stamp.mjs';

/** The repository root. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the built assets go (gitignored). */
export const WEB_OUT_DIR = join(ROOT, 'dist', 'web');
/** The entry points, by the logical name the page links them under. */
const ENTRIES: Readonly<Record<string, string>> = { 'app.js': 'web/app.ts', 'app.css': 'web/app.css' };
/** Browsers the bundle is written for (ES2020 modules, CSS nesting is not used). */
const TARGETS = ['chrome100', 'firefox100', 'safari15'];

/** One built asset as the manifest lists it. */
export interface ManifestAsset {
  /** The content-hashed file name under dist/web/. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** dist/web/manifest.json: logical name (`app.js`) to the built file. */
export interface WebManifest {
  readonly builtAt: string;
  readonly assets: Readonly<Record<string, ManifestAsset>>;
}

/** Writes `name.br` and `name.gz` beside the file, at the strongest settings (built once, served often). */
function precompress(path: string, bytes: Buffer): void {
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  );
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }));
}

/** Bundles the storefront into `outDir` (replaced as a whole) and returns its manifest. */
export async function buildWeb(outDir: string = WEB_OUT_DIR): Promise<WebManifest> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.values(ENTRIES),
    outdir: outDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: TARGETS,
    charset: 'utf8',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const assets: Record<string, ManifestAsset> = {};
  for (const [outPath, output] of Object.entries(result.metafile.outputs)) {
    const logical = Object.keys(ENTRIES).find((k) => ENTRIES[k] === output.entryPoint);
    if (!logical) throw new Error(`build-web: unexpected output ${outPath}`);
    const path = join(ROOT, outPath);
    const bytes = readFileSync(path);
    precompress(path, bytes);
    assets[logical] = { file: basename(outPath), sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  }
  const missing = Object.keys(ENTRIES).filter((k) => !assets[k]);
  if (missing.length > 0) throw new Error(`build-web: no output for ${missing.join(', ')}`);
  const manifest: WebManifest = { builtAt: new Date().toISOString(), assets };
  // Written last and renamed into place: a manifest on disk always names files that exist.
  const tmp = join(outDir, 'manifest.json.tmp');
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, join(outDir, 'manifest.json'));
  // What `npm start` compares to decide whether to build again (scripts/start.mjs).
  writeBuildStamp(outDir, ROOT, Object.keys(result.metafile.inputs));
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const manifest = await buildWeb();
  for (const [name, a] of Object.entries(manifest.assets)) console.log(`build-web: ${name} -> dist/web/${a.file} (${a.bytes} bytes)`);
}
