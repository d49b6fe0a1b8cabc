/**
 * The world from its snapshot when one of the same seed, fixture and localnet code is kept, built
 * otherwise. A build takes seconds (thousands of keys, addresses and accounts derived and encoded);
 * playing its writes back takes a fraction of that, and a warm `npm start` and the tests' many
 * localnet starts pay it at every start. A snapshot of another key, or one that fails its digest,
 * or whose playback does not land as recorded, is never trusted: the world is built on a new chain
 * and the snapshot written again (when the caller says so: `save()`).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { LocalChain } from '../chain/local-chain.ts';
import { localnetPath } from '../package-dir.ts';
import { buildWorld, restampWorld, type World } from '../world/world.ts';
import { loadWorldFixture, type WorldFixture } from '../world/world-fixture.ts';
import { decodeWorld, encodeWorld } from './world-codec.ts';
import { type PreparedWrite, prepareWorldWrites, recordWorldWrites, replayWorldWrites } from './world-recorder.ts';
import { readWorldSnapshot, sameKey, type WorldSnapshotKey, writeWorldSnapshot } from './world-snapshot-file.ts';

/** What `openWorld` needs. */
export interface OpenWorldOptions {
  readonly seed: string;
  /** A chain as the world is built on: new, nothing written yet (called again when a playback fails). */
  readonly createChain: () => LocalChain;
  /** Override of the committed fixture (tests). */
  readonly fixture?: WorldFixture;
  /** Directory of world snapshots (one file per seed); none: the world is built, nothing kept. */
  readonly snapshotDir?: string;
  readonly progress?: (line: string) => void;
}

/** The chain with its world, where the world came from, and how to keep a newly built one. */
export interface OpenedWorld {
  readonly chain: LocalChain;
  readonly world: World;
  readonly from: 'snapshot' | 'built';
  /** Writes the snapshot of a world just built, once (nothing for one played back); a failure is thrown. */
  save(): void;
}

let codeDigest: string | null = null;

/** SHA-256 of every file of the localnet's sources (fixtures included) and of LiteSVM's version. */
export function localnetCodeDigest(): string {
  if (codeDigest !== null) return codeDigest;
  const hash = createHash('sha256');
  const src = localnetPath('src');
  for (const name of readdirSync(src, { recursive: true, encoding: 'utf8' }).sort()) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(src, name));
    } catch {
      continue; // a directory
    }
    hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  }
  const litesvm = JSON.parse(readFileSync(createRequire(localnetPath('package.json')).resolve('litesvm/package.json'), 'utf8')) as { version: string };
  codeDigest = hash.update(`litesvm@${litesvm.version}`).digest('hex');
  return codeDigest;
}

/** The key a world of `seed` and `fixture` is kept under. */
export function worldSnapshotKey(seed: string, fixture: WorldFixture): WorldSnapshotKey {
  return { seed, fixture: createHash('sha256').update(JSON.stringify(fixture)).digest('hex'), code: localnetCodeDigest() };
}

/** The snapshot file of `seed` in `dir` (named by a digest: a seed is any text). */
export function worldSnapshotFile(dir: string, seed: string): string {
  return join(dir, `world-${createHash('sha256').update(seed).digest('hex').slice(0, 16)}.snapshot`);
}

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** A snapshot read, checked and decoded for playback. */
interface PreparedSnapshot {
  readonly nowUnix: number;
  readonly writes: readonly PreparedWrite[];
  readonly world: string;
}

/**
 * Snapshots this process has read, by file, with the file's identity (inode, size, change times)
 * and the key they were read under: a process that starts many localnets (a test runner's worker)
 * reads, hashes and decodes each once. A file replaced or touched since is read again.
 */
const preparedSnapshots = new Map<string, { readonly stamp: string; readonly key: WorldSnapshotKey; readonly snapshot: PreparedSnapshot }>();
/** Bounded: one entry per snapshot file, and a process plays a few seeds. */
const PREPARED_SNAPSHOTS_MAX = 8;

/** The snapshot in `file` of `key`, prepared for playback, or why it cannot be used. */
function preparedSnapshot(
  file: string,
  key: WorldSnapshotKey,
): { readonly ok: true; readonly snapshot: PreparedSnapshot } | { readonly ok: false; readonly reason: string } {
  let stamp: string | null = null;
  try {
    const st = statSync(file);
    stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {} // none yet or unreadable: the read below says which
  const kept = preparedSnapshots.get(file);
  if (kept && kept.stamp === stamp && sameKey(key, kept.key)) return { ok: true, snapshot: kept.snapshot };
  const read = readWorldSnapshot(file, key);
  if (!read.ok) return read;
  const snapshot = { nowUnix: read.body.nowUnix, writes: prepareWorldWrites(read.body.writes), world: read.body.world };
  if (stamp !== null && (preparedSnapshots.has(file) || preparedSnapshots.size < PREPARED_SNAPSHOTS_MAX)) preparedSnapshots.set(file, { stamp, key, snapshot });
  return { ok: true, snapshot };
}

/** Plays the snapshot back on a new chain; null (and why, to `progress`) when it cannot be used. */
function fromSnapshot(options: OpenWorldOptions, key: WorldSnapshotKey, file: string, progress: (line: string) => void): OpenedWorld | null {
  const started = performance.now();
  const read = preparedSnapshot(file, key);
  if (!read.ok) {
    progress(`world snapshot ${read.reason}: building the world (seed ${options.seed})`);
    return null;
  }
  const chain = options.createChain();
  // The time the build would read: the first open slot's, before the history moves the chain on.
  const nowUnix = chain.blockTimeOf(chain.openSlot());
  try {
    replayWorldWrites(chain, read.snapshot.writes);
    const world = restampWorld(chain, decodeWorld(read.snapshot.world), {
      builtAtUnix: read.snapshot.nowUnix,
      nowUnix,
      ...(options.fixture ? { fixture: options.fixture } : {}),
    });
    progress(`world (seed ${options.seed}) from its snapshot in ${seconds(started)}`);
    return { chain, world, from: 'snapshot', save: () => {} };
  } catch (err) {
    // A playback that failed is not tried again from memory: the rebuilt world's file replaces it.
    preparedSnapshots.delete(file);
    progress(`world snapshot did not play back (${err instanceof Error ? err.message : String(err)}): building the world`);
    return null;
  }
}

/** The world on a new chain: from its snapshot when it fits, else built (and `save()` keeps it). */
export async function openWorld(options: OpenWorldOptions): Promise<OpenedWorld> {
  const progress = options.progress ?? (() => {});
  const fixture = options.fixture ?? loadWorldFixture();
  const key = options.snapshotDir === undefined ? null : worldSnapshotKey(options.seed, fixture);
  const file = options.snapshotDir === undefined ? null : worldSnapshotFile(options.snapshotDir, options.seed);
  if (key && file) {
    const played = fromSnapshot(options, key, file, progress);
    if (played) return played;
  } else progress(`building the world (seed ${options.seed})`);
  const started = performance.now();
  const chain = options.createChain();
  const recorder = recordWorldWrites(chain);
  const nowUnix = chain.blockTimeOf(chain.openSlot());
  const world = await buildWorld(recorder.chain, { seed: options.seed, fixture });
  progress(`built the world in ${seconds(started)}`);
  // Described now: the snapshot is written later (the service first accepts its data directory).
  let body = key ? { nowUnix, writes: recorder.writes(), world: encodeWorld(world) } : null;
  return {
    chain,
    world,
    from: 'built',
    save: () => {
      if (key && file && body) writeWorldSnapshot(file, key, body);
      body = null;
    },
  };
}
