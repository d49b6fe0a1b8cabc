/**
 * The localnet chain core: one LiteSVM plus our own slots, blockhash queue, commitment levels,
 * indexes and events. It never advances by itself; the block producer calls `advanceSlot()`.
 *
 * Slot model (documented choice):
 * - transactions execute into the open slot; `advanceSlot()` closes it;
 * - `processed` is the last closed slot; a closed slot becomes `confirmed` when the next one
 *   closes (depth 1) and `finalized` two closes later (depth 2), both configurable;
 * - account reads always see the latest (open-slot) state, since LiteSVM keeps one state;
 *   commitment only changes which slot, blockhash and which transactions are reported.
 */
import { EventEmitter } from 'node:events';
import { Clock, EpochSchedule, LiteSVM } from 'litesvm';
import { address as toAddress, lamports as toLamports } from '@solana/kit';
import type { BlockMetaEvent, ChainHeadReader, Commitment, EpochInfoData, ExecutedTransaction, LocalChainEvents, SlotEvent } from './types.ts';
import { createChainIndexes, type SignatureEntry } from './chain-indexes.ts';
import { decodeWireTransaction, WireDecodeError, type DecodedTransaction } from './wire-transaction.ts';
import { runTransaction, simulateDecoded } from './transaction-runner.ts';
import { createChainAccounts, type AccountData, type AccountInput } from './chain-accounts.ts';
import type { SendResult, SignatureStatusData, SimulateResult } from './send-result.ts';
import { readComputeBudget } from './fee.ts';
import { buildTransferWire, createSyncKeypair } from './faucet-keypair.ts';
import { createSlotClock, type BlockRecord } from './slot-clock.ts';

/** Agave's MAX_PROCESSING_AGE: a blockhash is usable for this many blocks. */
export const BLOCKHASH_VALID_BLOCKS = 150;
/** Solana-core version the localnet reports. */
export const LOCALNET_CORE_VERSION = '2.2.0';
const DEFAULT_FAUCET_SEED = new Uint8Array(32).fill(7);
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

/** Chain configuration; everything but the epoch length and start time has a default. */
export interface LocalChainConfig {
  /** Wall-clock length of a slot, drives block times (default 400). */
  readonly slotMs?: number;
  /** Short epochs let tests see transitions. */
  readonly slotsPerEpoch: bigint;
  /** Unix seconds of the start slot's block. */
  readonly startUnixSeconds: number;
  /** First slot (the genesis block, already closed at creation; default 0n). */
  readonly startSlot?: bigint;
  /** Closes after which a slot is confirmed (default 1) and finalized (default 2). */
  readonly confirmationDepth?: number;
  readonly finalizationDepth?: number;
  /** Transaction bodies kept for getTransaction (default 20000, FIFO). */
  readonly maxTransactions?: number;
  /** Signatures kept per address (default 1000, newest). */
  readonly maxSignaturesPerAddress?: number;
  /** Addresses with signature history kept (default 100000, least recently active dropped). */
  readonly maxTrackedAddresses?: number;
  /** 32-byte seed of the airdrop faucet key (default fixed, so the faucet address is stable). */
  readonly faucetSeed?: Uint8Array;
  /** Called when an event listener throws; the chain keeps going. Default: console.error. */
  readonly onListenerError?: (error: unknown) => void;
}

/** Creates a chain with its genesis block closed and the next slot open. */
export function createLocalChain(config: LocalChainConfig) {
  const cfg = Object.freeze({ ...config });
  const svm = new LiteSVM().withTransactionHistory(0n).withBlockhashCheck(false);
  const clock = createSlotClock({
    slotMs: cfg.slotMs ?? 400,
    slotsPerEpoch: cfg.slotsPerEpoch,
    startUnixSeconds: cfg.startUnixSeconds,
    startSlot: cfg.startSlot ?? 0n,
    confirmationDepth: cfg.confirmationDepth ?? 1,
    finalizationDepth: cfg.finalizationDepth ?? 2,
  });
  const indexes = createChainIndexes({
    maxTransactions: cfg.maxTransactions ?? 20_000,
    maxSignaturesPerAddress: cfg.maxSignaturesPerAddress ?? 1000,
    maxTrackedAddresses: cfg.maxTrackedAddresses,
  });
  const accounts = createChainAccounts(svm, indexes);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const recentSignatures = new Map<string, bigint>();
  const faucet = createSyncKeypair(cfg.faucetSeed ?? DEFAULT_FAUCET_SEED);
  let openSlotTxCount = 0;
  let totalTransactions = 0n;

  svm.setEpochSchedule(new EpochSchedule(cfg.slotsPerEpoch, cfg.slotsPerEpoch, false, 0n, 0n));
  const genesisHash = svm.latestBlockhash();
  clock.genesis(genesisHash, 0n);
  syncSvmClock();
  indexes.openSlot(clock.openSlot());
  svm.setAccount({
    address: toAddress(faucet.address),
    lamports: toLamports(FAUCET_LAMPORTS),
    data: new Uint8Array(),
    programAddress: toAddress('11111111111111111111111111111111'),
    executable: false,
    space: 0n,
  });

  function syncSvmClock(): void {
    const slot = clock.openSlot();
    const epoch = clock.epochOf(slot);
    svm.setClock(new Clock(slot, BigInt(clock.blockTimeOf(clock.epochStartSlot(epoch))), epoch, epoch + 1n, BigInt(clock.blockTimeOf(slot))));
  }

  function emit(event: string, payload: unknown): void {
    for (const listener of emitter.listeners(event)) {
      try {
        (listener as (p: unknown) => void)(payload);
      } catch (error) {
        (cfg.onListenerError ?? console.error)(error);
      }
    }
  }

  function decode(wire: Uint8Array): DecodedTransaction | { error: string } {
    try {
      return decodeWireTransaction(wire, accounts.readData);
    } catch (e) {
      if (e instanceof WireDecodeError) return { error: e.message };
      throw e;
    }
  }

  function reject(signature: string | null, reason: 'decode' | 'rejected', err: unknown, message: string): SendResult {
    return { ok: false, signature, reason, err, message, logs: [], unitsConsumed: 0n };
  }

  function sendTransaction(wire: Uint8Array): SendResult {
    const decoded = decode(wire);
    if ('error' in decoded) return reject(null, 'decode', null, decoded.error);
    const signature = decoded.signatures[0] ?? null;
    if (signature !== null && recentSignatures.has(signature))
      return reject(signature, 'rejected', 'AlreadyProcessed', 'This transaction has already been processed');
    if (!clock.isBlockhashValid(decoded.recentBlockhash)) return reject(signature, 'rejected', 'BlockhashNotFound', 'Blockhash not found');
    const slot = clock.openSlot();
    const outcome = runTransaction(svm, decoded, { slot, index: openSlotTxCount, blockTime: clock.blockTimeOf(slot), wire: Uint8Array.from(wire) });
    if (!outcome.landed)
      return {
        ok: false,
        signature,
        reason: 'rejected',
        err: outcome.err,
        message: String(outcome.err),
        logs: outcome.logs,
        unitsConsumed: outcome.unitsConsumed,
      };
    const tx = outcome.tx;
    openSlotTxCount++;
    totalTransactions++;
    recentSignatures.set(tx.signature, slot);
    const writableKeys = decoded.accountKeys.filter((_, i) => decoded.writable[i]);
    for (const key of writableKeys) accounts.reindex(key);
    indexes.recordTransaction(tx, writableKeys, readComputeBudget(decoded.instructions, decoded.accountKeys).unitPriceMicroLamports);
    emit('transaction', tx);
    return { ok: true, signature: tx.signature, tx };
  }

  function advanceSlot(): BlockMetaEvent {
    const slot = clock.openSlot();
    svm.expireBlockhash();
    const block: BlockRecord = clock.closeOpenSlot(svm.latestBlockhash(), BigInt(openSlotTxCount), totalTransactions);
    openSlotTxCount = 0;
    syncSvmClock();
    indexes.openSlot(clock.openSlot());
    pruneRecentSignatures();
    const meta: BlockMetaEvent = {
      slot,
      parentSlot: block.parentSlot,
      blockhash: block.blockhash,
      parentBlockhash: block.parentBlockhash,
      blockTime: block.blockTime,
      blockHeight: block.blockHeight,
      executedTransactionCount: Number(block.transactionCount),
    };
    emit('blockMeta', meta);
    emit('slot', { slot, parent: block.parentSlot, status: 'processed' } satisfies SlotEvent);
    for (const status of ['confirmed', 'finalized'] as const) {
      const s = clock.slotFor(status);
      if (clock.lastEmitted(status) !== s) emit('slot', { slot: s, parent: s > 0n ? s - 1n : null, status } satisfies SlotEvent);
      clock.markEmitted(status, s);
    }
    return meta;
  }

  function pruneRecentSignatures(): void {
    // A duplicate older than the blockhash window would be rejected by the blockhash check anyway.
    const horizon = clock.openSlot() - BigInt(BLOCKHASH_VALID_BLOCKS) - 1n;
    for (const [sig, slot] of recentSignatures) {
      if (slot >= horizon) break;
      recentSignatures.delete(sig);
    }
  }

  const head: ChainHeadReader = {
    slot: (c) => clock.slotFor(c),
    blockHeight: (c) => clock.block(clock.slotFor(c))?.blockHeight ?? 0n,
    latestBlockhash: (c) => {
      const b = clock.block(clock.slotFor(c));
      if (!b) throw new Error('no block at commitment');
      return { slot: b.slot, blockhash: b.blockhash, lastValidBlockHeight: b.blockHeight + BigInt(BLOCKHASH_VALID_BLOCKS) };
    },
    isBlockhashValid: (blockhash) => ({ slot: clock.slotFor('processed'), valid: clock.isBlockhashValid(blockhash) }),
    version: () => ({ 'solana-core': LOCALNET_CORE_VERSION, 'feature-set': 0 }),
  };

  return {
    ...head,
    config: cfg,
    /** Escape hatch for world building (e.g. addProgram); setAccount through it skips our indexes. */
    litesvm: svm,
    faucetAddress: faucet.address,
    /** The genesis (start slot) block's hash, reported by getGenesisHash. */
    genesisHash: () => genesisHash,
    /** The first slot (genesis block). */
    startSlot: cfg.startSlot ?? 0n,
    on(event: 'slot' | 'transaction' | 'blockMeta', listener: (...args: never[]) => void) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return this;
    },
    off(event: 'slot' | 'transaction' | 'blockMeta', listener: (...args: never[]) => void) {
      emitter.off(event, listener as (...args: unknown[]) => void);
      return this;
    },
    sendTransaction,
    advanceSlot,
    /** Simulates without committing; `replaceRecentBlockhash` skips the blockhash check. */
    simulate(wire: Uint8Array, opts: { readonly sigVerify: boolean; readonly replaceRecentBlockhash: boolean }): SimulateResult {
      const decoded = decode(wire);
      if ('error' in decoded) return { ok: false, reason: 'decode', message: decoded.error };
      const latest = head.latestBlockhash('processed');
      const replacement = opts.replaceRecentBlockhash ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : null;
      if (!opts.replaceRecentBlockhash && !clock.isBlockhashValid(decoded.recentBlockhash)) {
        return {
          ok: true,
          decoded,
          replacementBlockhash: null,
          err: 'BlockhashNotFound',
          logs: [],
          unitsConsumed: 0n,
          innerInstructions: [],
          postAccounts: new Map(),
          returnData: null,
        };
      }
      return { ok: true, decoded, replacementBlockhash: replacement, ...simulateDecoded(svm, decoded, opts.sigVerify) };
    },
    /** A real faucet transfer (signed System transfer) landing in the open slot. */
    airdrop(address: string, lamports: bigint): SendResult {
      return sendTransaction(buildTransferWire(faucet, address, lamports, head.latestBlockhash('processed').blockhash));
    },
    setAccount: (address: string, account: AccountInput): void => accounts.setAccount(address, account),
    getAccount: (address: string): AccountData | null => accounts.getAccount(address),
    getProgramAccounts: accounts.getProgramAccounts,
    tokenAccountsByMint: indexes.tokenAccountsByMint,
    tokenAccountsByOwner: indexes.tokenAccountsByOwner,
    tokenAccountCount: indexes.tokenAccountCount,
    minimumBalanceForRentExemption: (dataLength: number) => svm.minimumBalanceForRentExemption(BigInt(dataLength)),
    /** Newest first; entries above the commitment's slot are hidden. */
    signaturesForAddress(address: string, q: { limit: number; before?: string; until?: string; commitment: Commitment }): SignatureEntry[] {
      const maxSlot = q.commitment === 'processed' ? clock.openSlot() : clock.slotFor(q.commitment);
      return indexes.signaturesForAddress(address, { limit: q.limit, before: q.before, until: q.until, maxSlot });
    },
    /** A retained transaction visible at `commitment`, else null. */
    transaction(signature: string, commitment: Commitment): ExecutedTransaction | null {
      const tx = indexes.transaction(signature);
      if (!tx) return null;
      return commitment === 'processed' || tx.slot <= clock.slotFor(commitment) ? tx : null;
    },
    signatureStatus(signature: string): SignatureStatusData | null {
      const tx = indexes.transaction(signature);
      if (!tx) return null;
      const status = clock.statusOf(tx.slot);
      const confirmations = status === 'finalized' ? null : Number(clock.slotFor('processed') > tx.slot ? clock.slotFor('processed') - tx.slot : 0n);
      return { slot: tx.slot, confirmations, err: tx.err, confirmationStatus: status };
    },
    prioritizationFees: (accounts: readonly string[]) => indexes.prioritizationFees(accounts, clock.slotFor('processed')),
    epochInfo(commitment: Commitment): EpochInfoData {
      const slot = clock.slotFor(commitment);
      const block = clock.block(slot);
      return {
        epoch: clock.epochOf(slot),
        slotIndex: slot % cfg.slotsPerEpoch,
        slotsInEpoch: cfg.slotsPerEpoch,
        absoluteSlot: slot,
        blockHeight: block?.blockHeight ?? 0n,
        transactionCount: block?.cumulativeTransactionCount ?? totalTransactions,
      };
    },
    epochSchedule: () => ({
      slotsPerEpoch: cfg.slotsPerEpoch,
      leaderScheduleSlotOffset: cfg.slotsPerEpoch,
      warmup: false,
      firstNormalEpoch: 0n,
      firstNormalSlot: 0n,
    }),
    /** Commitment reached by a slot (a transaction's status from its slot). */
    commitmentOfSlot: (slot: bigint): Commitment => clock.statusOf(slot),
    /** The open slot transactions currently land in. */
    openSlot: () => clock.openSlot(),
    blockTimeOf: (slot: bigint) => clock.blockTimeOf(slot),
  };
}

/** The chain object `createLocalChain` returns. */
export type LocalChain = ReturnType<typeof createLocalChain>;
export type { AccountData, AccountInput, LocalChainEvents, SendResult, SignatureStatusData, SimulateResult };
