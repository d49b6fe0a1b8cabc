/**
 * The storefront's built assets (scripts/build-web.ts writes them to dist/web/): read once at
 * start into memory with their precompressed variants, served by content-hashed name. Missing or
 * partial assets stop the start with a ConfigError that says to run `npm run build:web`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.ts';
import type { EncodedBody } from './encoded-body.ts';

/** Where `npm run build:web` writes the assets. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));
/** The logical assets the page links; the build must have produced each. */
export const REQUIRED_ASSETS = ['app.js', 'app.css'] as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const HASHED_NAME_RE = /^[A-Za-z0-9_-]+-[A-Za-z0-9]{8,}\.(?:js|css)$/;

/** One served asset. */
export interface WebAsset {
  readonly file: string;
  readonly contentType: string;
  readonly body: EncodedBody;
}

/** The loaded assets: by hashed file name, and the URL of each logical asset. */
export interface WebAssets {
  readonly byFile: ReadonlyMap<string, WebAsset>;
  url(name: (typeof REQUIRED_ASSETS)[number]): string;
}

interface Manifest {
  readonly assets: Readonly<Record<string, { readonly file: string; readonly sha256: string }>>;
}

function readManifest(dir: string): Manifest {
  const path = join(dir, 'manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : `cannot be read (${(err as Error).message})`;
    throw new ConfigError([`the storefront's built assets are not there: ${path} ${why}; run \`npm run build:web\``]);
  }
  const missing = REQUIRED_ASSETS.filter((n) => typeof manifest.assets?.[n]?.file !== 'string');
  if (missing.length > 0) throw new ConfigError([`${path} names no ${missing.join(', ')}; run \`npm run build:web\``]);
  return manifest;
}

function readAsset(dir: string, file: string, sha256: string): WebAsset {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name));
    } catch {
      throw new ConfigError([`the storefront asset ${join(dir, name)} is missing; run \`npm run build:web\``]);
    }
  };
  const contentType = CONTENT_TYPES[extname(file)];
  if (!HASHED_NAME_RE.test(file) || !contentType) throw new ConfigError([`unexpected storefront asset name ${file}; run \`npm run build:web\``]);
  const identity = read(file);
  if (createHash('sha256').update(identity).digest('hex') !== sha256)
    throw new ConfigError([`the storefront asset ${file} does not match its manifest; run \`npm run build:web\``]);
  return { file, contentType, body: { identity, br: read(`${file}.br`), gzip: read(`${file}.gz`), sha256 } };
}

/** Loads the assets the manifest in `dir` names (default dist/web/), or throws ConfigError. */
export function loadWebAssets(dir: string = WEB_DIST_DIR): WebAssets {
  const manifest = readManifest(dir);
  const byFile = new Map<string, WebAsset>();
  for (const { file, sha256 } of Object.values(manifest.assets)) byFile.set(file, readAsset(dir, file, sha256));
  return {
    byFile,
    url: (name) => `/assets/${manifest.assets[name]!.file}`,
  };
}
