/**
 * Cosignatures for the log's checkpoints (c2sp.org/tlog-witness): after each group of durable
 * appends the newest checkpoint is signed and submitted to every configured witness, with a
 * consistency proof from the size that witness last cosigned (a 409 names its size: the proof is
 * rebuilt from there). Runs beside the paid path, never in it: rounds are serialised (appends
 * during a round start one more), each call is bounded, and close() aborts what is in flight.
 *
 * Kept in memory: the newest submitted checkpoint and the newest one that reached the quorum, each
 * with the cosignature lines it got. A restart submits the current checkpoint again with old size
 * 0; each witness's 409 tells its size, so nothing needs to be stored here.
 */
import type { CheckpointNote } from './checkpoint-note-signer.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { submitCheckpoint, type WitnessClientConfig } from './witness-client.ts';

export type { CheckpointNote };

/** One configured witness. */
export interface WitnessEndpoint extends WitnessClientConfig {
  /** The witness's key name (its cosignature lines start with it). */
  readonly name: string;
  /** What /health shows of the URL: scheme, host and path, never credentials or a query. */
  readonly label: string;
}

export interface CheckpointWitnessingConfig {
  readonly witnesses: readonly WitnessEndpoint[];
  /** Cosignatures a checkpoint needs before tlog-proofs are served under it. */
  readonly quorum: number;
  readonly ledger: Pick<Ledger, 'head' | 'consistency' | 'onAppend'>;
  readonly signHead: () => Promise<CheckpointNote>;
  readonly now?: () => Date;
}

/** A checkpoint with the cosignature lines it got, keyed by witness name. */
export interface CosignedCheckpoint {
  readonly size: number;
  readonly note: string;
  readonly cosignatures: ReadonlyMap<string, string>;
}

/** What /health shows of one witness. */
export interface WitnessStatus {
  readonly name: string;
  readonly url: string;
  /** The size it last cosigned for us (null: not yet). */
  readonly cosignedSize: number | null;
  readonly cosignedAt: string | null;
  /** Why the last submission failed, or null when it succeeded. */
  readonly error: string | null;
}

export interface CheckpointWitnessing {
  /** Subscribes to the ledger and submits the current head once. */
  start(): void;
  /** The checkpoint to serve: the newest with a quorum, else the newest submitted, with its cosignatures appended. */
  servedNote(): string | null;
  /** The newest checkpoint with a quorum whose tree holds entry `index`, or null. */
  covering(index: number): CosignedCheckpoint | null;
  status(): { readonly quorum: number; readonly cosignedSize: number | null; readonly witnesses: readonly WitnessStatus[] };
  /** Resolves once the round in flight (if any) and any round it queued have ended. */
  idle(): Promise<void>;
  close(): void;
}

interface WitnessView {
  /** The size the witness last told or cosigned: the next submission's old size. */
  known: number;
  cosigned: number | null;
  at: string | null;
  error: string | null;
}

/** Most 409s followed in one submission (a witness that keeps moving is left for the next round). */
const MAX_CONFLICTS = 2;

const withCosignatures = (c: CosignedCheckpoint): string => c.note + [...c.cosignatures.values()].join('');

/** RFC 6962 consistency proof from `oldSize` (0: none needed) to `size`, or null when the ledger cannot give one. */
function proofFrom(ledger: CheckpointWitnessingConfig['ledger'], oldSize: number, size: number): Uint8Array[] | null {
  if (oldSize > size) return null;
  if (oldSize === 0 || oldSize === size) return [];
  const proof = ledger.consistency(oldSize, size, 'rfc6962');
  return proof.ok ? proof.value.proof.map((h) => new Uint8Array(Buffer.from(h, 'hex'))) : null;
}

/**
 * Submits `cp` to one witness from the size it last told us, following its 409s (at most
 * MAX_CONFLICTS); records the outcome in `view` and a verified cosignature in `cosignatures`.
 */
async function submitTo(
  ctx: { readonly ledger: CheckpointWitnessingConfig['ledger']; readonly now: () => Date; readonly signal: AbortSignal },
  w: WitnessEndpoint,
  view: WitnessView,
  cp: CheckpointNote,
  cosignatures: Map<string, string>,
): Promise<void> {
  let oldSize = view.known;
  for (let conflicts = 0; ; conflicts++) {
    const proof = proofFrom(ctx.ledger, oldSize, cp.size);
    if (proof === null) {
      view.error = `the witness knows size ${oldSize}, beyond this checkpoint (${cp.size})`;
      return;
    }
    const answer = await submitCheckpoint(w, { oldSize, proof, note: cp.note }, ctx.signal);
    if (answer.kind === 'cosigned') {
      Object.assign(view, { known: cp.size, cosigned: cp.size, at: ctx.now().toISOString(), error: null });
      cosignatures.set(w.name, answer.lines.join(''));
      return;
    }
    if (answer.kind === 'refused' || conflicts === MAX_CONFLICTS) {
      view.error = answer.kind === 'refused' ? answer.reason : 'the witness keeps reporting another size';
      return;
    }
    view.known = answer.size;
    oldSize = answer.size;
  }
}

/** Calls `run` once after each group of appends (the listener runs on the commit path: it only queues). */
function onEachCommit(ledger: CheckpointWitnessingConfig['ledger'], run: () => void): () => void {
  let queued = false;
  return ledger.onAppend(() => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      run();
    });
  });
}

/** The witnessing of the ledger's checkpoints; idle until start(). */

export function createCheckpointWitnessing(config: Readonly<CheckpointWitnessingConfig>): CheckpointWitnessing {
  const now = config.now ?? (() => new Date());
  const views = new Map<WitnessEndpoint, WitnessView>(config.witnesses.map((w) => [w, { known: 0, cosigned: null, at: null, error: null }]));
  const abort = new AbortController();
  let latest: { size: number; note: string; cosignatures: Map<string, string> } | null = null;
  let quorate: CosignedCheckpoint | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stop: (() => void) | null = null;

  async function round(): Promise<void> {
    if (abort.signal.aborted) return;
    const cp = await config.signHead();
    if (latest?.size !== cp.size) latest = { size: cp.size, note: cp.note, cosignatures: new Map() };
    const current = latest;
    const ctx = { ledger: config.ledger, now, signal: abort.signal };
    await Promise.all(config.witnesses.map((w) => submitTo(ctx, w, views.get(w)!, cp, current.cosignatures)));
    if (current.cosignatures.size >= config.quorum && (quorate === null || current.size >= quorate.size))
      quorate = { ...current, cosignatures: new Map(current.cosignatures) };
  }

  function schedule(): void {
    if (abort.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((err: unknown) => console.error(`witnessing: the round failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          schedule();
        }
      });
  }

  return {
    start() {
      if (config.witnesses.length === 0 || stop) return;
      stop = onEachCommit(config.ledger, schedule);
      schedule();
    },
    servedNote() {
      const served = quorate ?? latest;
      return served ? withCosignatures(served) : null;
    },
    covering: (index) => (quorate !== null && index < quorate.size ? quorate : null),
    status() {
      const witnesses = config.witnesses.map((w) => {
        const v = views.get(w)!;
        return { name: w.name, url: w.label, cosignedSize: v.cosigned, cosignedAt: v.at, error: v.error };
      });
      return { quorum: config.quorum, cosignedSize: quorate?.size ?? null, witnesses };
    },
    async idle() {
      while (running) await running;
    },
    close() {
      stop?.();
      abort.abort();
    },
  };
}
