/**
 * Pure pieces of the localnet Geyser server: Yellowstone filter semantics, TransactionError
 * bincode, base58, token UI amounts and the replay log.
 */
import { describe, expect, it } from 'vitest';
import { getBase58Decoder } from '@solana/kit';
import {
  compileFilters,
  type GeyserFilterError,
  matchSlotFilters,
  matchTransactionFilters,
  type SubscribeRequestData,
  type TransactionFilterRequest,
} from '../../src/geyser/geyser-filters.ts';
import { encodeTransactionError } from '../../src/geyser/geyser-tx-error.ts';
import { base58Bytes } from '../../src/encoding/base58.ts';
import { toInt64, uiAmountString } from '../../src/geyser/geyser-messages.ts';
import { ReplayLog } from '../../src/geyser/geyser-replay-log.ts';
import type { ExecutedTransaction } from '../../src/chain/types.ts';

const A = '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5';
const B = 'EPjFWJ5AvKVvnKBbMp1MvXkamHGAh2JPJsbAGvbVCMPU';
const C = 'So11111111111111111111111111111111111111112';
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

const none: TransactionFilterRequest = {
  vote: null,
  failed: null,
  signature: null,
  accountInclude: [],
  accountExclude: [],
  accountRequired: [],
};

function request(patch: Partial<SubscribeRequestData>): SubscribeRequestData {
  return { slots: {}, transactions: {}, transactionsStatus: {}, blocksMeta: [], unsupported: [], commitment: null, ping: null, fromSlot: null, ...patch };
}

function tx(patch: Partial<ExecutedTransaction>): ExecutedTransaction {
  return { signature: SIG, isVote: false, err: null, accountKeys: [A, B], ...patch } as ExecutedTransaction;
}

describe('geyser transaction filters', () => {
  const match = (filter: Partial<TransactionFilterRequest>, t: ExecutedTransaction) =>
    matchTransactionFilters(compileFilters(request({ transactions: { f: { ...none, ...filter } } })), t).length === 1;

  it('an empty filter matches every transaction', () => {
    expect(match({}, tx({ isVote: true, err: 'AccountNotFound' }))).toBe(true);
  });
  it('vote and failed compare only when set', () => {
    expect(match({ vote: false }, tx({ isVote: true }))).toBe(false);
    expect(match({ vote: true }, tx({ isVote: true }))).toBe(true);
    expect(match({ failed: true }, tx({}))).toBe(false);
    expect(match({ failed: false }, tx({ err: { InstructionError: [0, { Custom: 1 }] } }))).toBe(false);
    expect(match({ failed: true }, tx({ err: { InstructionError: [0, { Custom: 1 }] } }))).toBe(true);
  });
  it('include needs any key, exclude none, required all', () => {
    expect(match({ accountInclude: [C, B] }, tx({}))).toBe(true);
    expect(match({ accountInclude: [C] }, tx({}))).toBe(false);
    expect(match({ accountExclude: [B] }, tx({}))).toBe(false);
    expect(match({ accountExclude: [C] }, tx({}))).toBe(true);
    expect(match({ accountRequired: [A, B] }, tx({}))).toBe(true);
    expect(match({ accountRequired: [A, C] }, tx({}))).toBe(false);
    expect(match({ accountInclude: [A], accountExclude: [B] }, tx({}))).toBe(false);
  });
  it('signature selects one transaction', () => {
    expect(match({ signature: SIG }, tx({}))).toBe(true);
    expect(match({ signature: SIG }, tx({ signature: '1111111111111111111111111111111111111111111111111111111111111111' }))).toBe(false);
  });
  it('refuses bad pubkeys, signatures, commitments and unsupported filter kinds', () => {
    const refused = (r: SubscribeRequestData) => {
      try {
        compileFilters(r);
        return null;
      } catch (error) {
        return (error as GeyserFilterError).kind;
      }
    };
    expect(refused(request({ transactions: { f: { ...none, accountRequired: ['xyz'] } } }))).toBe('invalid_argument');
    expect(refused(request({ transactions: { f: { ...none, signature: 'abc' } } }))).toBe('invalid_argument');
    expect(refused(request({ commitment: 7 }))).toBe('invalid_argument');
    expect(refused(request({ unsupported: ['accounts'] }))).toBe('unimplemented');
  });
});

describe('geyser slot filters', () => {
  it('filterByCommitment keeps only the status equal to the commitment', () => {
    const filters = compileFilters(request({ commitment: 1, slots: { all: { filterByCommitment: null }, c: { filterByCommitment: true } } }));
    expect(matchSlotFilters(filters, 'processed')).toEqual(['all']);
    expect(matchSlotFilters(filters, 'confirmed')).toEqual(['all', 'c']);
    expect(matchSlotFilters(filters, 'finalized')).toEqual(['all']);
  });
});

describe('geyser encoders', () => {
  it('bincode-encodes TransactionError variants', () => {
    expect([...encodeTransactionError('AccountNotFound')]).toEqual([2, 0, 0, 0]);
    expect([...encodeTransactionError({ InstructionError: [3, { Custom: 0x01020304 }] })]).toEqual([8, 0, 0, 0, 3, 25, 0, 0, 0, 4, 3, 2, 1]);
    expect([...encodeTransactionError({ InstructionError: [1, 'InvalidArgument'] })]).toEqual([8, 0, 0, 0, 1, 1, 0, 0, 0]);
    expect([...encodeTransactionError({ InsufficientFundsForRent: { account_index: 4 } })]).toEqual([31, 0, 0, 0, 4]);
    expect(() => encodeTransactionError({ Nope: 1 })).toThrow(/cannot encode/);
  });
  it('decodes base58 like kit, leading zero bytes included', () => {
    const decoder = getBase58Decoder();
    for (const bytes of [new Uint8Array(32), Uint8Array.from([0, 0, 7, 255]), crypto.getRandomValues(new Uint8Array(64))]) {
      expect([...base58Bytes(decoder.decode(bytes))]).toEqual([...bytes]);
    }
    expect(() => base58Bytes('0OIl')).toThrow(/not base58/);
  });
  it('renders token UI amounts as Agave does and u64 beyond 2^53 as low/high', () => {
    expect(uiAmountString('1500000', 6)).toBe('1.5');
    expect(uiAmountString('0', 6)).toBe('0');
    expect(uiAmountString('42', 0)).toBe('42');
    expect(uiAmountString('5', 9)).toBe('0.000000005');
    expect(toInt64(5n)).toBe(5);
    expect(toInt64(2n ** 63n + 1n)).toMatchObject({ low: 1, high: -0x80000000 });
  });
});

describe('geyser replay log', () => {
  it('keeps a bounded window of slots and replays from a slot in order', () => {
    const log = new ReplayLog({ maxSlots: 3, maxEvents: 100 });
    for (let slot = 1n; slot <= 5n; slot += 1n) log.record({ kind: 'slot', value: { slot, parent: slot - 1n, status: 'processed' } });
    // Slot 3's processed status is the oldest kept: slot 4 is the first one held in full.
    expect(log.firstAvailable()).toBe(4n);
    expect(log.since(4n).map((e) => e.value.slot)).toEqual([4n, 5n]);
  });

  it('does not offer a slot it saw only partly (statuses of older slots after a restart)', () => {
    const log = new ReplayLog({ maxSlots: 100, maxEvents: 1000 });
    log.record({ kind: 'slot', value: { slot: 7n, parent: 6n, status: 'confirmed' } });
    log.record({ kind: 'slot', value: { slot: 5n, parent: 4n, status: 'finalized' } });
    expect(log.firstAvailable()).toBeNull();
    log.record({ kind: 'slot', value: { slot: 9n, parent: 8n, status: 'processed' } });
    expect(log.firstAvailable()).toBe(10n);
  });
});
