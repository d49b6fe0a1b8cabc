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
 * The write path is `transaction-intake.ts`, the read side at a commitment `commitment-view.ts`;
 * this module wires them to one LiteSVM and closes slots.
 */
import { EventEmitter } from 'node:events';
import { Clock, EpochSchedule, LiteSVM } from 'litesvm';
import { address as toAddress, lamports as toLamports } from '@solana/kit';
import type { BlockMetaEvent, ExecutedTransaction, LocalChainEvents, SlotEvent } from './types.ts';
import { createChainIndexes } from './chain-indexes.ts';
import { type AccountData, type AccountInput, type AccountKeys, createChainAccounts } from './chain-accounts.ts';
import type { SendResult, SignatureStatusData, SimulateResult } from './send-result.ts';
import { buildTransferWire, createSyncKeypair } from '../signing/faucet-keypair.ts';
import { createSlotClock, type BlockRecord } from './slot-clock.ts';
import { createCommitmentView } from './commitment-view.ts';
import { createTransactionIntake, type SimulateOptions } from './transaction-intake.ts';

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
  /** Block height of that first block (default 0n); a restored chain goes on from its saved height. */
  readonly startBlockHeight?: bigint;
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
  const faucet = createSyncKeypair(cfg.faucetSeed ?? DEFAULT_FAUCET_SEED);
  const intake = createTransactionIntake({ svm, clock, accounts, indexes, onLanded: (tx) => emit('transaction', tx) });
  const view = createCommitmentView({ clock, indexes, slotsPerEpoch: cfg.slotsPerEpoch, totalTransactions: intake.totalTransactions });

  svm.setEpochSchedule(new EpochSchedule(cfg.slotsPerEpoch, cfg.slotsPerEpoch, false, 0n, 0n));
  const genesisHash = svm.latestBlockhash();
  clock.genesis(genesisHash, cfg.startBlockHeight ?? 0n);
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

  function advanceSlot(): BlockMetaEvent {
    const slot = clock.openSlot();
    svm.expireBlockhash();
    const block: BlockRecord = clock.closeOpenSlot(svm.latestBlockhash(), BigInt(intake.openSlotCount()), intake.totalTransactions());
    syncSvmClock();
    indexes.openSlot(clock.openSlot());
    intake.slotClosed();
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

  return {
    ...view,
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
    /** Decodes, checks and executes a wire transaction into the open slot. */
    sendTransaction: intake.send,
    advanceSlot,
    /** Simulates without committing; `replaceRecentBlockhash` skips the blockhash check. */
    simulate: (wire: Uint8Array, opts: SimulateOptions): SimulateResult => intake.simulate(wire, opts, view.latestBlockhash('processed')),
    /** A real faucet transfer (signed System transfer) landing in the open slot. */
    airdrop(address: string, lamports: bigint): SendResult {
      return intake.send(buildTransferWire(faucet, address, lamports, view.latestBlockhash('processed').blockhash));
    },
    setAccount: (address: string, account: AccountInput, keys?: AccountKeys): void => accounts.setAccount(address, account, keys),
    /** Calls `listener` with every account address written from now on (null stops): the saved state's changes. */
    watchAccountWrites: accounts.watchWrites,
    /** Puts a previous run's landed transaction back in the history (its statuses, getTransaction, signatures). */
    restoreTransaction: (tx: ExecutedTransaction): void => indexes.restoreTransaction(tx),
    getAccount: (address: string): AccountData | null => accounts.getAccount(address),
    getProgramAccounts: accounts.getProgramAccounts,
    tokenAccountsByMint: indexes.tokenAccountsByMint,
    tokenAccountsByOwner: indexes.tokenAccountsByOwner,
    tokenAccountCount: indexes.tokenAccountCount,
    minimumBalanceForRentExemption: (dataLength: number) => svm.minimumBalanceForRentExemption(BigInt(dataLength)),
  };
}

/** The chain object `createLocalChain` returns. */
export type LocalChain = ReturnType<typeof createLocalChain>;
export type { AccountData, AccountInput, LocalChainEvents, SendResult, SignatureStatusData, SimulateResult };
