/**
 * The world snapshot's file: a header line naming what the snapshot is of (its key) with the
 * length and SHA-256 of the body, then the body (the build's time, its writes, the world's
 * description, one JSON line each). Written whole under a temporary name, fsynced, renamed over
 * the old one, the directory fsynced: a crash leaves the old file or the new one. A file cut short,
 * flipped on disk or edited by hand fails its length or digest and is never used: the world is
 * built again and the file replaced.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { WorldWrite } from './world-recorder.ts';

/** First field of the header: what this file is, and its format (raised when the format changes). */
const MAGIC = 'x402-intel localnet world snapshot 2';

/** What determines the world: its seed, its fixture and the code that builds and executes it. */
export interface WorldSnapshotKey {
  readonly seed: string;
  /** SHA-256 of the world fixture as the build read it. */
  readonly fixture: string;
  /** SHA-256 of the localnet's code and of the LiteSVM that executes the history. */
  readonly code: string;
}

/** What a snapshot holds. */
export interface WorldSnapshotBody {
  /** The block time (unix seconds) the world was built at: its time stamps are moved to a later start's. */
  readonly nowUnix: number;
  readonly writes: readonly WorldWrite[];
  /** The world's description as `encodeWorld` wrote it. */
  readonly world: string;
}

/** A snapshot read back, or why it cannot be used. */
export type ReadSnapshot = { readonly ok: true; readonly body: WorldSnapshotBody } | { readonly ok: false; readonly reason: string };

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** Whether `b` names the same seed, fixture and code as `a`. */
export const sameKey = (a: WorldSnapshotKey, b: Partial<WorldSnapshotKey>): boolean => a.seed === b.seed && a.fixture === b.fixture && a.code === b.code;

/** The snapshot in `file` if it is whole and of `key`. */
export function readWorldSnapshot(file: string, key: WorldSnapshotKey): ReadSnapshot {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'none yet' : `unreadable (${code ?? 'error'})` };
  }
  const newline = text.indexOf('\n');
  if (newline < 0) return { ok: false, reason: 'damaged (no header)' };
  let header: { magic?: unknown; key?: Partial<WorldSnapshotKey>; length?: unknown; sha256?: unknown };
  try {
    header = JSON.parse(text.slice(0, newline));
  } catch {
    return { ok: false, reason: 'damaged (header)' };
  }
  if (header?.magic !== MAGIC) return { ok: false, reason: 'of another format' };
  if (!header.key || !sameKey(key, header.key)) return { ok: false, reason: 'of another seed, fixture or localnet code' };
  const body = text.slice(newline + 1);
  if (body.length !== header.length || sha256(body) !== header.sha256) return { ok: false, reason: 'damaged (length or digest)' };
  const [meta, writes, world] = body.split('\n');
  try {
    const { nowUnix } = JSON.parse(meta ?? '') as { nowUnix: number };
    return { ok: true, body: { nowUnix, writes: JSON.parse(writes ?? ''), world: world ?? '' } };
  } catch {
    return { ok: false, reason: 'damaged (body)' };
  }
}

/** Replaces `file` with a snapshot of `body` under `key`, atomically (see the module's comment). */
export function writeWorldSnapshot(file: string, key: WorldSnapshotKey, body: WorldSnapshotBody): void {
  const text = `${JSON.stringify({ nowUnix: body.nowUnix })}\n${JSON.stringify(body.writes)}\n${body.world}`;
  const header = JSON.stringify({ magic: MAGIC, key, length: text.length, sha256: sha256(text) });
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // One temporary name per process: two starts writing the same snapshot (tests) never share one.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeFileSync(fd, `${header}\n${text}`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
