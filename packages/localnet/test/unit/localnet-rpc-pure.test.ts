import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { computeTransactionFee, readComputeBudget } from '../../src/chain/fee.ts';
import { formatUiAmountString, parseTokenAccountBase, uiTokenAmount } from '../../src/encoding/token-layout.ts';
import { describeTransactionError, toAgaveTransactionError } from '../../src/chain/transaction-error.ts';
import { stringifyRpcJson } from '../../src/rpc/rpc-json.ts';
import { commitmentOf, u64Param } from '../../src/rpc/rpc-params.ts';
import { parseKnownInstruction } from '../../src/rpc/rpc-instruction-parsers.ts';
import { createSlotClock } from '../../src/chain/slot-clock.ts';
import { encodeBase58 } from '../../src/encoding/base58.ts';

const CB = 'ComputeBudget111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

function u64le(v: bigint): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return [...b];
}

describe('fee', () => {
  it('follows Agave: signatures plus ceil(price * limit / 1e6) with builtin-aware default limits', () => {
    const keys = ['payer', CB, TOKEN, '11111111111111111111111111111111'];
    const price = { programIdIndex: 1, accounts: [], data: Uint8Array.from([3, ...u64le(12_345n)]) };
    const token = { programIdIndex: 2, accounts: [], data: new Uint8Array([12]) };
    const system = { programIdIndex: 3, accounts: [], data: new Uint8Array(12) };
    expect(readComputeBudget([price], keys)).toEqual({ unitLimit: null, unitPriceMicroLamports: 12_345n });
    expect(computeTransactionFee(1, [price, token], keys)).toBe(5000n + 2507n);
    expect(computeTransactionFee(1, [price, system], keys)).toBe(5000n + 75n);
    const limit = { programIdIndex: 1, accounts: [], data: Uint8Array.from([2, 0x10, 0x27, 0, 0]) };
    expect(computeTransactionFee(2, [limit, price, token], keys)).toBe(10_000n + 124n);
    expect(computeTransactionFee(1, [token], keys)).toBe(5000n);
  });
});

describe('token layout', () => {
  it('formats ui amounts like Agave', () => {
    expect(formatUiAmountString(1_500_000n, 6)).toBe('1.5');
    expect(formatUiAmountString(5n, 6)).toBe('0.000005');
    expect(formatUiAmountString(0n, 0)).toBe('0');
    expect(uiTokenAmount(250_000_000n, 6)).toEqual({ amount: '250000000', decimals: 6, uiAmount: 250, uiAmountString: '250' });
  });

  it('base58 matches kit and token accounts parse', () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37) % 256);
    expect(encodeBase58(bytes)).toBe(getBase58Decoder().decode(bytes));
    expect(encodeBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    const data = new Uint8Array(165);
    data.set(bytes, 0);
    data.set(u64le(42n), 64);
    data[108] = 2;
    expect(parseTokenAccountBase(data)).toMatchObject({ mint: encodeBase58(bytes), amount: 42n, state: 'frozen', delegate: null, isNative: null });
  });
});

describe('transaction errors', () => {
  it('renders Agave JSON and display text', () => {
    expect(toAgaveTransactionError(7)).toBe('BlockhashNotFound');
    const ixErr = { constructor: { name: 'TransactionErrorInstructionError' }, index: 2, err: () => ({ code: 6001 }) };
    expect(toAgaveTransactionError(ixErr)).toEqual({ InstructionError: [2, { Custom: 6001 }] });
    const fieldless = { constructor: { name: 'TransactionErrorInstructionError' }, index: 0, err: () => 1 };
    expect(toAgaveTransactionError(fieldless)).toEqual({ InstructionError: [0, 'InvalidArgument'] });
    expect(toAgaveTransactionError({ constructor: { name: 'TransactionErrorInsufficientFundsForRent' }, accountIndex: 1 })).toEqual({
      InsufficientFundsForRent: { account_index: 1 },
    });
    expect(describeTransactionError({ InstructionError: [0, { Custom: 1 }] })).toBe('Error processing Instruction 0: custom program error: 0x1');
    expect(describeTransactionError('BlockhashNotFound')).toBe('Blockhash not found');
  });
});

describe('rpc helpers', () => {
  it('prints bigints as bare JSON numbers, u64::MAX included', () => {
    expect(stringifyRpcJson({ rentEpoch: 18446744073709551615n, n: [1n] })).toBe('{"rentEpoch":18446744073709551615,"n":[1]}');
  });

  it('maps commitments and validates u64 params', () => {
    expect(commitmentOf({})).toBe('finalized');
    expect(commitmentOf({ commitment: 'recent' })).toBe('processed');
    expect(() => commitmentOf({ commitment: 'soon' })).toThrow(/unknown variant/);
    expect(u64Param('18446744073709551615', 'x')).toBe(2n ** 64n - 1n);
    expect(() => u64Param(-1, 'x')).toThrow();
    expect(() => u64Param('18446744073709551616', 'x')).toThrow();
  });

  it('parses SPL Token transferChecked and System transfer for jsonParsed', () => {
    const tc = parseKnownInstruction(TOKEN, ['src', 'mint', 'dst', 'auth'], Uint8Array.from([12, ...u64le(1_500_000n), 6]));
    expect(tc).toEqual({
      program: 'spl-token',
      parsed: {
        type: 'transferChecked',
        info: { source: 'src', mint: 'mint', destination: 'dst', authority: 'auth', tokenAmount: uiTokenAmount(1_500_000n, 6) },
      },
    });
    const st = parseKnownInstruction('11111111111111111111111111111111', ['a', 'b'], Uint8Array.from([2, 0, 0, 0, ...u64le(9n)]));
    expect(st).toEqual({ program: 'system', parsed: { type: 'transfer', info: { source: 'a', destination: 'b', lamports: 9n } } });
    expect(parseKnownInstruction(TOKEN, [], new Uint8Array([99]))).toBeNull();
  });
});

describe('slot clock', () => {
  it('tracks commitments, block times, epochs and the 150-block blockhash window', () => {
    const clock = createSlotClock({ slotMs: 400, slotsPerEpoch: 10n, startUnixSeconds: 1000, startSlot: 5n, confirmationDepth: 1, finalizationDepth: 2 });
    clock.genesis('h5', 0n);
    expect(clock.openSlot()).toBe(6n);
    expect(clock.slotFor('finalized')).toBe(5n);
    for (let i = 6; i <= 200; i++) clock.closeOpenSlot(`h${i}`, 0n, 0n);
    expect([clock.slotFor('processed'), clock.slotFor('confirmed'), clock.slotFor('finalized')]).toEqual([200n, 199n, 198n]);
    expect(clock.statusOf(199n)).toBe('confirmed');
    expect(clock.isBlockhashValid('h50')).toBe(true);
    expect(clock.isBlockhashValid('h49')).toBe(false);
    expect(clock.blockTimeOf(10n)).toBe(1002);
    expect(clock.epochOf(200n)).toBe(20n);
    expect(clock.block(200n)?.blockHeight).toBe(195n);
  });
});
