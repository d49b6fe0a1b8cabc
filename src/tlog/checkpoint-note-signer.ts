/**
 * The log's current checkpoint as a signed note (tlog-checkpoint.ts), signed once per tree size:
 * the checkpoint has no time and Ed25519 is deterministic, so a new signature at the same size
 * would be the same bytes, and free traffic asking for it never queues more than one signature.
 * `/checkpoint` serves it; whatever else needs the log's signed head (witness submission, offline
 * proofs) takes it from here rather than signing again.
 */
import type { LedgerHead } from '../ledger/ledger-reader.ts';
import type { NoteSigner } from './signed-note.ts';
import { signCheckpoint } from './tlog-checkpoint.ts';

/** Configuration of the signer. */
export interface CheckpointNoteSignerConfig {
  readonly ledger: { head(): LedgerHead };
  /** The log's origin line; also the note key name. */
  readonly origin: string;
  readonly publicKey: Uint8Array;
  /** Ed25519 signature with the identity (the pool's task). */
  readonly sign: NoteSigner['sign'];
}

/** A signed checkpoint of the log. */
export interface CheckpointNote {
  /** Its tree size. */
  readonly size: number;
  /** The signed note's wire form. */
  readonly note: string;
}

/** Signs the ledger's current head as a checkpoint note. */
export interface CheckpointNoteSigner {
  readonly origin: string;
  /** The note of the durable head now (signed on first ask at each size). Rejects when signing fails; the next call tries again. */
  current(): Promise<CheckpointNote>;
}

export function createCheckpointNoteSigner(config: Readonly<CheckpointNoteSignerConfig>): CheckpointNoteSigner {
  const signer: NoteSigner = { keyName: config.origin, publicKey: config.publicKey, sign: config.sign };
  let cached: { size: number; note: Promise<CheckpointNote> } | null = null;
  return {
    origin: config.origin,
    current() {
      const head = config.ledger.head();
      if (cached?.size !== head.treeSize) {
        const rootHash = Buffer.from(head.merkleRootRfc6962, 'hex');
        const size = head.treeSize;
        const note = signCheckpoint({ origin: config.origin, treeSize: size, rootHash, extensions: [] }, [signer]).then((text) => ({ size, note: text }));
        cached = { size, note };
        note.catch(() => {
          if (cached?.note === note) cached = null;
        });
      }
      return cached.note;
    },
  };
}
