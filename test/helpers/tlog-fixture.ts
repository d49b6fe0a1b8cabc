/**
 * A small transparency log for witness tests: an RFC 6962 tree, its checkpoints signed as notes by
 * one log key (the origin is the key name), and consistency proofs, all from the tlog and ledger layers' own
 * modules. Two logs made from the same seed and origin but fed different entries are a fork.
 */
import { createHash } from 'node:crypto';
import { createEd25519Signer } from '../../src/chain/keys/ed25519.ts';
import { publicKeyOfSeed } from '../../src/receipts/identity.ts';
import { RFC6962_HASHER } from '../../src/ledger/merkle-hash.ts';
import { createMerkleTree } from '../../src/ledger/merkle-tree.ts';
import { encodeVerifierKey } from '../../src/tlog/signed-note.ts';
import { signCheckpoint } from '../../src/tlog/tlog-checkpoint.ts';

export const TEST_ORIGIN = 'intel.example/test-log';

/** A 32-byte seed derived from a label. */
export const seedOf = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(label).digest());

export interface TestLog {
  readonly vkey: string;
  append(...entries: string[]): void;
  size(): number;
  /** The signed checkpoint note at `size` (default: all). */
  checkpoint(size?: number): Promise<string>;
  consistency(from: number, to?: number): Uint8Array[];
  root(size?: number): Uint8Array;
}

/** A log signed by the key of `seedLabel`, under `origin`. */
export function createTestLog(seedLabel = 'log-key', origin = TEST_ORIGIN): TestLog {
  const seed = seedOf(seedLabel);
  const publicKey = publicKeyOfSeed(seed);
  const sign = createEd25519Signer(seed);
  const tree = createMerkleTree({ hasher: RFC6962_HASHER });
  return {
    vkey: encodeVerifierKey(origin, publicKey),
    append(...entries) {
      for (const e of entries) tree.append(Buffer.from(e));
    },
    size: () => tree.size(),
    checkpoint: (size = tree.size()) =>
      signCheckpoint({ origin, treeSize: size, rootHash: tree.root(size), extensions: [] }, [{ keyName: origin, publicKey, sign }]),
    consistency: (from, to = tree.size()) => tree.consistencyProof(from, to),
    root: (size = tree.size()) => tree.root(size),
  };
}
