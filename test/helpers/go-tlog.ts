/**
 * The independent verifier of the tiled log (test/fixtures/go/tlogverify): a Go program built in
 * GOPATH mode against Debian's golang.org/x/mod/sumdb/{note,tlog} (packages golang-go and
 * golang-golang-x-mod-dev, which .ci/run installs), with no module download.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where Debian installs the Go sources of golang.org/x/mod. */
export const DEBIAN_GOPATH = '/usr/share/gocode';
const SOURCE_DIR = resolve(import.meta.dirname, '../fixtures/go/tlogverify');
/** Kept between runs: compiling net/http from nothing takes a while on a busy machine. */
const GO_CACHE_DIR = join(tmpdir(), 'solana-x402-intel-go-build-cache');

/** What the Go verifier computed (hex digests), after every check it makes passed. */
export interface GoReport {
  readonly origin: string;
  readonly oldSize: number;
  readonly oldRoot: string;
  readonly newSize: number;
  readonly newRoot: string;
  readonly consistency: readonly string[];
  readonly inclusion: ReadonlyArray<{ index: number; entry: string; leafHash: string; proof: readonly string[] }>;
  readonly entriesChecked: number;
  readonly fetches: number;
  readonly bytes: number;
}

function run(file: string, args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, GOPATH: DEBIAN_GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: GO_CACHE_DIR, GOTOOLCHAIN: 'local' };
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr: stderr || (err && typeof err.code !== 'number' ? err.message : '') });
    });
  });
}

/** Builds the verifier into `outDir`; returns its path. Throws with Go's output when the build fails. */
export async function buildGoVerifier(outDir: string): Promise<string> {
  mkdirSync(GO_CACHE_DIR, { recursive: true });
  const out = join(outDir, 'tlogverify');
  const built = await run('go', ['build', '-o', out, '.'], SOURCE_DIR);
  if (built.code !== 0) throw new Error(`go build failed (apt-get install golang-go golang-golang-x-mod-dev): ${built.stderr}`);
  return out;
}

/** Runs the verifier; `ok: false` carries its complaint. */
export async function runGoVerifier(
  binary: string,
  args: { url: string; vkey: string; oldFile: string; newFile: string; indexes: readonly number[] },
): Promise<{ ok: true; report: GoReport } | { ok: false; stderr: string }> {
  const argv = ['-url', args.url, '-vkey', args.vkey, '-old', args.oldFile, '-new', args.newFile, '-index', args.indexes.join(',')];
  const r = await run(binary, argv, tmpdir());
  return r.code === 0 ? { ok: true, report: JSON.parse(r.stdout) as GoReport } : { ok: false, stderr: r.stderr };
}
