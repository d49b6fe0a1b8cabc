/**
 * Where the localnet keeps its state across restarts (the service's data directory in embedded
 * mode, as anvil's and surfpool's state files do): one directory, held by one localnet at a
 * time, a state file read at start and replaced on a timer and at close.
 *
 * Nothing is written before `begin()`: the service starts its localnet while it still checks its
 * own data directory, and a start it refuses must leave the saved state as it was. `--fresh`
 * (here `fresh`) ignores the saved state; the first save, at `begin()`, replaces it.
 */
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalnetState, readState, STATE_VERSION, writeState } from './state-file.ts';

/** The lock file's name in the state directory. */
export const STATE_LOCK_FILE = 'localnet.lock';
/** How often a changed state is saved while running. */
export const STATE_SAVE_INTERVAL_MS = 15_000;
/** How long a start waits for a previous localnet (its service killed, saving as it goes) to let go. */
const LOCK_WAIT_MS = 10_000;
const LOCK_POLL_MS = 100;

/** Where the state lives and whether to start over. */
export interface LocalnetStateOptions {
  readonly dir: string;
  readonly fresh?: boolean;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock (created whole with a hard link, so of two racing starts one wins). */
async function lockStateDir(dir: string): Promise<() => void> {
  const path = join(dir, STATE_LOCK_FILE);
  const temporary = `${path}.${process.pid}`;
  writeFileSync(temporary, `${process.pid}\n`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  try {
    for (;;) {
      try {
        linkSync(temporary, path);
        return () => {
          try {
            if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
          } catch {}
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (!Number.isSafeInteger(holder) || !isRunning(holder)) {
        unlinkSync(path);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`the localnet state in ${dir} is in use by process ${holder}`);
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  } finally {
    unlinkSync(temporary);
  }
}

/** The opened state directory: what was saved (null when none or fresh), and its lock. */
export interface OpenedState {
  readonly dir: string;
  readonly saved: LocalnetState | null;
  release(): void;
}

/** Locks `dir` and reads its state; a state made with another seed is refused, naming the way out. */
export async function openStateDir(options: LocalnetStateOptions, seed: string): Promise<OpenedState> {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const release = await lockStateDir(options.dir);
  try {
    const saved = options.fresh ? null : readState(options.dir);
    if (saved && saved.seed !== seed)
      throw new Error(`the localnet state in ${options.dir} was made with seed ${saved.seed}, not ${seed}; start with --fresh to start the localnet over`);
    return { dir: options.dir, saved, release };
  } catch (err) {
    release();
    throw err;
  }
}

/** What the saver reads at each save. */
export interface StateSource {
  readonly seed: string;
  /** Whether anything changed since the last capture. */
  changed(): boolean;
  capture(): Omit<LocalnetState, 'version' | 'seed' | 'savedAt'>;
}

/** Saves on a timer once begun, and once more at `close()`. */
export function createStateSaver(opened: OpenedState, source: StateSource, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | null = null;
  let begun = false;

  function save(): void {
    try {
      writeState(opened.dir, { version: STATE_VERSION, seed: source.seed, savedAt: new Date().toISOString(), ...source.capture() });
    } catch (error) {
      onError(error);
    }
  }

  return {
    /** From now on the state is the localnet's to write: saved at once, then when it changed. */
    begin(): void {
      if (begun) return;
      begun = true;
      save();
      timer = setInterval(() => {
        if (source.changed()) save();
      }, STATE_SAVE_INTERVAL_MS);
      timer.unref();
    },
    /** The last save (only once begun) and the lock let go. */
    close(): void {
      if (timer) clearInterval(timer);
      timer = null;
      if (begun) save();
      begun = false;
      opened.release();
    },
  };
}

/** The saver `createStateSaver` returns. */
export type StateSaver = ReturnType<typeof createStateSaver>;
