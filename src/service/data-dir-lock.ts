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
 * on every run). Taking over moves the stale file aside and checks that the file moved is the
 * one judged stale; a live lock another start wrote meanwhile is put back. The lock is removed
 * on close and at exit, and only while it still names this holder.
 */
import { randomBytes } from 'node:crypto';
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

/** Moves a stale lock aside; one that turns out not to be the file judged stale is put back. */
function takeOver(path: string, judged: string, aside: string): void {
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // another start took it over first
    throw err;
  }
  try {
    if (readFileSync(aside, 'utf8') !== judged) linkSync(aside, path);
  } finally {
    unlinkSync(aside);
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
      let seen: string;
      try {
        seen = readFileSync(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const other = parseHolder(seen);
      if (other !== null && holderIsLive(other, probe)) throw new InUseError(`data directory ${shown(dir)} is in use by process ${other.pid}`);
      takeOver(path, seen, `${staged}.stale`);
    }
    throw new InUseError(`data directory ${shown(dir)} is being locked by other starts at the same time; try again`);
  } finally {
    unlinkSync(staged);
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
