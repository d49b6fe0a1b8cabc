/**
 * Synthetic Geyser traffic for the caches benchmark: parsed transaction updates, the same as the
 * client hands them over (bytes), a feeder that absorbs whole slots into the caches, and a chain
 * event source for the localnet Geyser server. Compute-unit prices follow a fixed log-shaped
 * spread, every tenth transaction tips a Jito account; account keys are random per run.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { decodeBase58, encodeBase58 } from '../../src/chain/solana/base58.ts';
import { JITO_TIP_ACCOUNTS, keyId, type ParsedTransaction, type TxInfoLike } from '../../src/chain/geyser/geyser-tx-parse.ts';
import type { TimingCaches } from '../../src/caches/timing-caches.ts';
import type { ChainHeadReader, ExecutedTransaction, LocalChainEvents } from '@solana-x402-intel/localnet';

/** Mainnet's epoch schedule, for the caches. */
export const SCHEDULE = { slotsPerEpoch: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
/** Transactions per slot, mainnet-sized. */
export const TXS_PER_SLOT = 1_000;
/** Slots in the caches' window. */
export const WINDOW_SLOTS = 150;
const ACCOUNTS = 5_000;
/** The random account keys the transactions write to. */
export const KEYS = Array.from({ length: ACCOUNTS }, () => new Uint8Array(randomBytes(32)));
const keyIds = KEYS.map(keyId);
const tipKeys = JITO_TIP_ACCOUNTS.map((a) => decodeBase58(a)!);
/** Key ids of the Jito tip accounts, as the transaction parser wants them. */
export const TIP_IDS = new Set(tipKeys.map(keyId));
const SYSTEM = new Uint8Array(32);
const COMPUTE_BUDGET = decodeBase58('ComputeBudget111111111111111111111111111111')!;

const price = (i: number): number => Math.round(1_000 * Math.exp(((i * 7919) % 1000) / 150));

/** The `i`th transaction as the caches absorb it after parsing. */
export const parsedTx = (i: number): ParsedTransaction => ({
  cuPrice: i % 5 === 0 ? 0 : price(i),
  tipLamports: i % 10 === 0 ? 1_000 + (i % 997) * 100 : 0,
  failed: false,
  signature: null,
  writable: [keyIds[i % ACCOUNTS]!, keyIds[(i * 31) % ACCOUNTS]!, keyIds[(i * 97) % ACCOUNTS]!],
});

function u64(kind: number, value: number, width: 1 | 4): Uint8Array {
  const out = new Uint8Array(width + 8);
  const view = new DataView(out.buffer);
  if (width === 1) out[0] = kind;
  else view.setUint32(0, kind, true);
  view.setBigUint64(width, BigInt(value), true);
  return out;
}

/** A transaction update as the client hands it over (bytes for keys and data). */
export function txInfo(i: number): TxInfoLike {
  const accountKeys = [KEYS[i % ACCOUNTS]!, KEYS[(i * 31) % ACCOUNTS]!, tipKeys[i % 8]!, SYSTEM, COMPUTE_BUDGET];
  return {
    isVote: false,
    transaction: {
      message: {
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
        accountKeys,
        instructions: [
          { programIdIndex: 4, accounts: new Uint8Array(0), data: u64(3, price(i), 1) },
          { programIdIndex: 3, accounts: Uint8Array.of(0, 1), data: u64(2, 5_000, 4) },
          { programIdIndex: 3, accounts: Uint8Array.of(0, 2), data: u64(2, 1_000 + (i % 997) * 100, 4) },
        ],
      },
    },
    meta: { innerInstructions: [], loadedWritableAddresses: [], loadedReadonlyAddresses: [] },
  };
}

/** Feeds `slots` slots of `perSlot` transactions starting after `from`; returns the next slot. */
export function feed(caches: TimingCaches, from: number, slots: number, perSlot: number, make: (i: number) => ParsedTransaction, atMs = Date.now()): number {
  const h = caches.handlers;
  let s = from;
  for (let k = 0; k < slots; k++, s++) {
    h.onSlot(s, 'processed', atMs, false);
    for (let i = 0; i < perSlot; i++) h.onTransaction(s + 1, make(s * perSlot + i));
    h.onSlot(s, 'confirmed', atMs, false);
  }
  return s;
}

/** The `n`th synthetic transaction: a compute-unit price and a tip to one of the Jito accounts. */
function executedTx(n: number, slot: bigint, index: number, keyText: readonly string[], blockhash: string): ExecutedTransaction {
  return {
    signature: encodeBase58(randomBytes(64)),
    signatures: [],
    slot,
    index,
    isVote: false,
    err: null,
    fee: 5_000n,
    computeUnitsConsumed: 450n,
    logs: [],
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
    accountKeys: [keyText[n % 64]!, JITO_TIP_ACCOUNTS[n % 8]!, '11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111'],
    recentBlockhash: blockhash,
    instructions: [
      { programIdIndex: 3, accounts: [], data: u64(3, price(n), 1) },
      { programIdIndex: 2, accounts: [0, 1], data: u64(2, 10_000 + n, 4) },
    ],
    innerInstructions: [],
    preBalances: [1n, 1n, 1n, 1n],
    postBalances: [1n, 1n, 1n, 1n],
    preTokenBalances: [],
    postTokenBalances: [],
    wire: new Uint8Array(0),
    blockTime: 1_750_000_000,
  };
}

/** A chain event source of synthetic executed transactions for the localnet Geyser server. */
export function syntheticChain(): { events: LocalChainEvents & EventEmitter; head: ChainHeadReader; slot(txs: number): void } {
  const events = new EventEmitter() as LocalChainEvents & EventEmitter;
  let slot = 1_000n;
  const blockhash = encodeBase58(KEYS[0]!);
  const keyText = KEYS.slice(0, 64).map(encodeBase58);
  let n = 0;
  const tx = (s: bigint, index: number): ExecutedTransaction => executedTx(++n, s, index, keyText, blockhash);
  const status = (s: bigint, st: 'processed' | 'confirmed') => events.emit('slot', { slot: s, parent: s - 1n, status: st });
  return {
    events,
    head: {
      slot: () => slot,
      blockHeight: () => slot,
      latestBlockhash: () => ({ slot, blockhash, lastValidBlockHeight: slot + 150n }),
      isBlockhashValid: () => ({ slot, valid: true }),
      version: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
    },
    slot(txs) {
      slot += 1n;
      for (let i = 0; i < txs; i++) events.emit('transaction', tx(slot, i));
      status(slot, 'processed');
      status(slot - 1n, 'confirmed');
    },
  };
}
