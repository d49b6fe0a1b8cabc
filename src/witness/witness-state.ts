/**
 * What a witness remembers of each log: the size and root hash of the latest checkpoint it
 * cosigned, keyed by the log's origin line. The whole state is one small JSON file replaced
 * atomically (a temporary file fsynced, renamed over, then the directory fsynced), and a change
 * is on disk before the cosignature that depends on it leaves: a witness restarted from its data
 * dir can never cosign a checkpoint that forks from one it already cosigned.
 *
 * Check-then-persist runs under one lock per witness (tlog-witness: the old-size check and the
 * update must be atomic, or two racing requests could roll the recorded size back).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '../durable/atomic-replace.ts';

/** The state file's name under the witness data dir. */
export const WITNESS_STATE_FILE = 'witness-state.json';
const STATE_VERSION = 1;
const ROOT_BYTES = 32;

/** The latest cosigned view of one log. */
export interface LogView {
  readonly size: number;
  /** The RFC 6962 root hash at `size` (32 bytes). */
  readonly root: Uint8Array;
}

/** The durable views, one per origin. */
export interface WitnessState {
  /** The latest cosigned view of `origin`, or null when the witness never cosigned for it. */
  view(origin: string): LogView | null;
  /**
   * Runs `decide` with the current view of `origin` while no other update runs; when it returns a
   * new view, that view is made durable before `update` resolves. Resolves with decide's result.
   */
  update<T>(origin: string, decide: (current: LogView | null) => { readonly next: LogView | null; readonly result: T }): Promise<T>;
}

interface StoredView {
  readonly size: number;
  readonly root: string;
}

function isStoredView(v: unknown): v is StoredView {
  if (typeof v !== 'object' || v === null) return false;
  const { size, root } = v as Record<string, unknown>;
  return Number.isSafeInteger(size) && (size as number) >= 0 && typeof root === 'string' && Buffer.from(root, 'base64').length === ROOT_BYTES;
}

function readState(path: string): Map<string, LogView> {
  const views = new Map<string, LogView>();
  if (!existsSync(path)) return views;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    parsed = null;
  }
  const logs = (parsed as { logs?: unknown } | null)?.logs;
  // Writes are atomic, so a bad file was edited by hand: starting from nothing could cosign a fork.
  if ((parsed as { version?: unknown } | null)?.version !== STATE_VERSION || typeof logs !== 'object' || logs === null)
    throw new Error(`witness state file ${path} is not valid; fix or restore it (starting empty could cosign a fork)`);
  for (const [origin, view] of Object.entries(logs)) {
    if (!isStoredView(view)) throw new Error(`witness state file ${path} has an invalid entry for one log; fix or restore it`);
    views.set(origin, Object.freeze({ size: view.size, root: new Uint8Array(Buffer.from(view.root, 'base64')) }));
  }
  return views;
}

function serialize(views: ReadonlyMap<string, LogView>): string {
  const logs: Record<string, StoredView> = {};
  for (const [origin, view] of views) logs[origin] = { size: view.size, root: Buffer.from(view.root).toString('base64') };
  return `${JSON.stringify({ version: STATE_VERSION, logs }, null, 1)}\n`;
}

/** Opens the state under `dataDir` (created when absent); throws when the file is unreadable. */
export function openWitnessState(config: { readonly dataDir: string }): WitnessState {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const path = join(config.dataDir, WITNESS_STATE_FILE);
  const views = readState(path);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    view: (origin) => views.get(origin) ?? null,
    update(origin, decide) {
      const run = queue.then(async () => {
        const { next, result } = decide(views.get(origin) ?? null);
        if (next !== null) {
          const changed = new Map(views).set(origin, Object.freeze({ size: next.size, root: new Uint8Array(next.root) }));
          // Durable first: the in-memory view (and so the cosignature) follows the disk, never leads it.
          await replaceFile(path, serialize(changed), 0o600);
          views.set(origin, changed.get(origin)!);
        }
        return result;
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
