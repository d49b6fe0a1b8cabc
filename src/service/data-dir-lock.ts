/**
 * One process per data directory (docs/operations.md#one-process-per-port-and-data-directory): two
 * services writing one ledger would both append index 0 at the same offset and break it. The
 * lock is the file `<dataDir>/service.lock` naming its holder: PID, the process's start time (as
 * the kernel counts it, where /proc shows it) and a random nonce. It is created whole in one step
 * (a complete temporary file hard-linked into place, which fails if the lock exists), never
 * checked first and written after, so of two starts racing exactly one holds it.
 *
 * A lock left by a process that died (SIGKILL, a crash) is stale and taken over: its PID is not
 * running, or runs with another start time (the PID was reused: a container's service is PID 1
 * on every run). Of several starts that find one stale lock, one replaces it (takeOver); the
 * others then find the new holder alive. The lock is removed at exit, and only while it still
 * names this holder.
 */
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { InUseError } from '../errors.ts';

/** The lock file's name in the data directory. */
export const DATA_DIR_LOCK_FILE = 'service.lock';
/** Stale locks taken over in a row before giving up (only a storm of racing starts gets there). */
const MAX_LOCK_ATTEMPTS = 8;

/** Who holds a lock, as its file says. */
export interface LockHolder {
  readonly pid: number;
  /** The process's start time as the kernel reports it (/proc), or null where it cannot be read. */
  readonly startedAt: string | null;
  readonly nonce: string;
}

/** How a lock looks at processes; the defaults ask the operating system, tests inject their own. */
export interface ProcessProbe {
  readonly pid: number;
  /** Whether a process with this PID runs now (another user's counts). */
  isRunning(pid: number): boolean;
  /** The start time of the process with this PID, or null when unknown. */
  startTime(pid: number): string | null;
}

export interface DataDirLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock if it still names this holder; idempotent. */
  release(): void;
}

/** Nonces of the locks this process holds: a lock naming this PID with another nonce is a dead predecessor's. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/PID/stat (clock ticks after boot), read past the parenthesised command name. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** This process, as the operating system shows it. */
export const SYSTEM_PROBE: ProcessProbe = { pid: process.pid, isRunning, startTime };

/** The holder a lock file names, or null for anything else (it is then stale: no holder writes one). */
export function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.nonce !== 'string') return null;
    return { pid: v.pid as number, startedAt: typeof v.startedAt === 'string' ? v.startedAt : null, nonce: v.nonce };
  } catch {
    return null;
  }
}

/** Whether the process that wrote the lock still runs (the same process, not a later one under its PID). */
export function holderIsLive(holder: LockHolder, probe: ProcessProbe, held: ReadonlySet<string> = heldHere): boolean {
  if (holder.pid === probe.pid) return held.has(holder.nonce);
  if (!probe.isRunning(holder.pid)) return false;
  if (holder.startedAt === null) return true;
  const now = probe.startTime(holder.pid);
  return now === null || now === holder.startedAt;
}

/** `.data` for a directory under the working directory, else the absolute path. */
function shown(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? dir : rel;
}

/**
 * Replaces the stale lock `judged` with ours (`staged`), or returns false to look again. One
 * start at a time takes a given stale lock over: the one that creates its takeover token (a name
 * derived from the stale content; creating it fails if it exists). The token's holder replaces
 * the lock in one rename, and only while the lock is still the stale one; a start that gets the
 * token later finds the lock replaced and gives it back.
 */
function takeOver(path: string, judged: string, staged: string, probe: ProcessProbe): boolean {
  const token = `${path}.takeover-${createHash('sha256').update(judged).digest('hex').slice(0, 16)}`;
  try {
    linkSync(staged, token);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another start is taking it over, or died doing so: its token is then removed.
    const other = parseHolder(readIfThere(token) ?? '');
    if (other === null || !holderIsLive(other, probe)) removeIfThere(token);
    return false;
  }
  try {
    if (readIfThere(path) !== judged) return false;
    renameSync(token, path);
    return true;
  } finally {
    removeIfThere(token);
  }
}

function readIfThere(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Takes the lock of `dir` (created if absent) or throws InUseError naming the process that holds
 * it. `onExit` removes it at process exit too (default on).
 */
export function lockDataDir(dir: string, probe: ProcessProbe = SYSTEM_PROBE, onExit = true): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, DATA_DIR_LOCK_FILE);
  const holder: LockHolder = { pid: probe.pid, startedAt: probe.startTime(probe.pid), nonce: randomBytes(12).toString('hex') };
  const content = `${JSON.stringify(holder)}\n`;
  const staged = join(dir, `.${DATA_DIR_LOCK_FILE}.${holder.nonce}`);
  writeFileSync(staged, content, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < MAX_LOCK_ATTEMPTS; attempt++) {
      try {
        linkSync(staged, path);
        return held(path, content, holder.nonce, onExit);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const seen = readIfThere(path);
      if (seen === null) continue;
      const other = parseHolder(seen);
      if (other !== null && holderIsLive(other, probe)) throw new InUseError(`data directory ${shown(dir)} is in use by process ${other.pid}`);
      if (takeOver(path, seen, staged, probe)) return held(path, content, holder.nonce, onExit);
    }
    throw new InUseError(`data directory ${shown(dir)} is being locked by other starts at the same time; try again`);
  } finally {
    removeIfThere(staged);
  }
}

function held(path: string, content: string, nonce: string, onExit: boolean): DataDirLock {
  heldHere.add(nonce);
  const release = (): void => {
    if (!heldHere.delete(nonce)) return;
    process.off('exit', release);
    try {
      if (readFileSync(path, 'utf8') === content) unlinkSync(path);
    } catch {
      // Already gone: nothing to release.
    }
  };
  if (onExit) process.on('exit', release);
  return { path, release };
}

/**
 * Throws InUseError when a live process holds `dir`'s lock; writes nothing (not even the
 * directory). What `npm start` asks before it builds; the lock itself is taken by `lockDataDir`.
 */
export function assertDataDirFree(dir: string, probe: ProcessProbe = SYSTEM_PROBE): void {
  const seen = readIfThere(join(dir, DATA_DIR_LOCK_FILE));
  const other = seen === null ? null : parseHolder(seen);
  if (other !== null && holderIsLive(other, probe)) throw new InUseError(`data directory ${shown(dir)} is in use by process ${other.pid}`);
}
