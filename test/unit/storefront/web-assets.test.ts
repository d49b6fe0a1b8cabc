/**
 * The storefront build and its loading: the build writes content-hashed bundles, a manifest and
 * Brotli/gzip variants that decode to the same bytes; the service loads them, and refuses to
 * start (ConfigError naming `npm run build:web`) when they are missing, partial or altered.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb, type WebManifest } from '../../../scripts/build-web.ts';
import { ConfigError } from '../../../src/errors.ts';
import { loadWebAssets } from '../../../src/storefront/web-assets.ts';

const root = mkdtempSync(join(tmpdir(), 'web-assets-'));
const built = join(root, 'built');
let manifest: WebManifest;

beforeAll(async () => {
  manifest = await buildWeb(built);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the build to break. */
function copyOfBuild(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const f of ['manifest.json', ...Object.values(manifest.assets).flatMap((a) => [a.file, `${a.file}.br`, `${a.file}.gz`])])
    copyFileSync(join(built, f), join(dir, f));
  return dir;
}

function configProblem(dir: string): string {
  try {
    loadWebAssets(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('loadWebAssets accepted a broken build');
}

describe('build:web', () => {
  it('writes hashed, minified bundles with variants that decode to the same bytes', () => {
    expect(Object.keys(manifest.assets).sort()).toEqual(['app.css', 'app.js']);
    for (const asset of Object.values(manifest.assets)) {
      expect(asset.file).toMatch(/^app-[A-Z0-9]{8}\.(js|css)$/);
      const bytes = readFileSync(join(built, asset.file));
      expect(bytes.length).toBe(asset.bytes);
      expect(brotliDecompressSync(readFileSync(join(built, `${asset.file}.br`))).equals(bytes)).toBe(true);
      expect(gunzipSync(readFileSync(join(built, `${asset.file}.gz`))).equals(bytes)).toBe(true);
    }
    const js = readFileSync(join(built, manifest.assets['app.js']!.file), 'utf8');
    // Bundled: no bare imports left for the browser to resolve, nothing loaded from elsewhere.
    expect(js).not.toMatch(/\bimport\s*[^(]*\bfrom\s*["']/);
    expect(js).not.toMatch(/https?:\/\/(?!github\.com\/coinbase)/);
    expect(js.split('\n').length).toBeLessThan(5);
  });

  it('loads into the assets the service serves, by hashed name', () => {
    const assets = loadWebAssets(built);
    const js = manifest.assets['app.js']!.file;
    expect(assets.url('app.js')).toBe(`/assets/${js}`);
    expect(assets.byFile.get(js)).toMatchObject({ contentType: 'text/javascript; charset=utf-8' });
    expect(assets.byFile.get(manifest.assets['app.css']!.file)).toMatchObject({ contentType: 'text/css; charset=utf-8' });
  });
});

describe('missing or broken builds stop the start', () => {
  it('no build at all', () => {
    expect(configProblem(join(root, 'nothing'))).toMatch(/manifest\.json is missing; run `npm run build:web`/);
  });

  it('a manifest that lists no script', () => {
    const dir = copyOfBuild('no-script');
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ assets: { 'app.css': manifest.assets['app.css'] } }));
    expect(configProblem(dir)).toMatch(/names no app\.js; run `npm run build:web`/);
  });

  it('a missing compressed variant', () => {
    const dir = copyOfBuild('no-br');
    unlinkSync(join(dir, `${manifest.assets['app.js']!.file}.br`));
    expect(configProblem(dir)).toMatch(/\.js\.br is missing; run `npm run build:web`/);
  });

  it('a file that is not what the manifest says', () => {
    const dir = copyOfBuild('altered');
    writeFileSync(join(dir, manifest.assets['app.css']!.file), 'body{}');
    expect(configProblem(dir)).toMatch(/does not match its manifest; run `npm run build:web`/);
  });
});
