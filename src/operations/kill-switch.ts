/**
 * The operator kill switch (docs/contract.md#kill-switch): while active every paid call answers 503.
 *
 * Order of a transition: the audit entry is appended and durable first, then the state file is
 * replaced atomically (src/durable/atomic-replace.ts: temp file, fsync, rename, fsync of the directory), and only then does
 * `isActive()` change. A crash in between leaves an audit entry for a transition that did not
 * take effect (the operator got no answer and retries); it can never leave a transition in
 * effect that the public ledger does not show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '../durable/atomic-replace.ts';
import { makeDirSync } from '../durable/file-sync.ts';
import { ServiceError } from '../errors.ts';
import type { Ledger } from '../ledger/ledger.ts';

/** File name of the persisted state inside the data dir. */
export const KILL_SWITCH_FILE_NAME = 'kill-switch.json';
/** Audit event codes of the two transitions. */
export const KILL_SWITCH_EVENTS = Object.freeze({ activated: 'kill-switch.activated', released: 'kill-switch.released' });

/** The persisted and reported state. */
export interface KillSwitchState {
  readonly active: boolean;
  /** When the current state began (ISO 8601), null if it never changed. */
  readonly since: string | null;
  readonly reason: string | null;
  /** Ledger index of the audit entry of the last transition. */
  readonly ledgerIndex: number | null;
}

/** Result of asking for a transition. */
export interface KillSwitchTransition {
  readonly state: KillSwitchState;
  /** False when the switch already was in the asked state (nothing appended). */
  readonly changed: boolean;
}

export interface KillSwitchConfig {
  /** The service data dir; the state lives in `<dataDir>/kill-switch.json`. */
  readonly dataDir: string;
  readonly ledger: Pick<Ledger, 'append'>;
  readonly now?: () => Date;
}

export interface KillSwitch {
  /** Cheap: a field read, asked on every paid call. */
  isActive(): boolean;
  state(): KillSwitchState;
  activate(reason?: string): Promise<KillSwitchTransition>;
  release(reason?: string): Promise<KillSwitchTransition>;
  /** Stops following a shared state (pg-kill-switch.ts); nothing to do for the file. */
  close(): Promise<void>;
}

const INACTIVE: KillSwitchState = Object.freeze({ active: false, since: null, reason: null, ledgerIndex: null });

function isState(v: unknown): v is KillSwitchState {
  const s = v as KillSwitchState;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof s.active === 'boolean' &&
    (s.since === null || typeof s.since === 'string') &&
    (s.reason === null || typeof s.reason === 'string') &&
    (s.ledgerIndex === null || (Number.isSafeInteger(s.ledgerIndex) && s.ledgerIndex >= 0))
  );
}

function readState(path: string): KillSwitchState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return INACTIVE;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  // Writes are atomic, so a bad file was edited by hand: refuse to guess whether paid calls may run.
  if (!isState(parsed)) throw new ServiceError('internal_error', `kill-switch state file ${path} is not valid; fix or remove it`, { path });
  return Object.freeze({ active: parsed.active, since: parsed.since, reason: parsed.reason, ledgerIndex: parsed.ledgerIndex });
}

/** Opens the kill switch with the state persisted under `dataDir` (inactive when none). */
export function createKillSwitch(config: Readonly<KillSwitchConfig>): KillSwitch {
  const now = config.now ?? (() => new Date());
  makeDirSync(config.dataDir, 0o777);
  const path = join(config.dataDir, KILL_SWITCH_FILE_NAME);
  let current = readState(path);
  // Transitions run one at a time so two concurrent activations append one audit entry.
  const oneAtATime = createOneAtATime();

  const transition = (active: boolean, reason: string | undefined): Promise<KillSwitchTransition> => {
    const run = async (): Promise<KillSwitchTransition> => {
      if (current.active === active) return { state: current, changed: false };
      const event = active ? KILL_SWITCH_EVENTS.activated : KILL_SWITCH_EVENTS.released;
      const appended = await config.ledger.append(reason === undefined ? { kind: 'audit', event } : { kind: 'audit', event, reason });
      const next: KillSwitchState = Object.freeze({ active, since: now().toISOString(), reason: reason ?? null, ledgerIndex: appended.index });
      await replaceFile(path, `${JSON.stringify(next)}\n`, 0o644);
      current = next;
      return { state: next, changed: true };
    };
    return oneAtATime(run);
  };
  return { ...switchOver(() => current, transition), close: () => Promise.resolve() };
}

/** Runs each function given after the previous one settled (failed or not). */
export function createOneAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (run) => {
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
}

/** The reading and switching part of a kill switch, over its current state and its transition. */
export function switchOver(
  current: () => KillSwitchState,
  transition: (active: boolean, reason: string | undefined) => Promise<KillSwitchTransition>,
): Omit<KillSwitch, 'close'> {
  return {
    isActive: () => current().active,
    state: current,
    activate: (reason) => transition(true, reason),
    release: (reason) => transition(false, reason),
  };
}
