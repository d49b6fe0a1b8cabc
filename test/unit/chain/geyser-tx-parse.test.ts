import { describe, expect, it } from 'vitest';
import { decodeBase58 } from '../../../src/chain/solana/base58.ts';
import { JITO_TIP_ACCOUNTS, keyId, parseTransaction, type TxInfoLike } from '../../../src/chain/geyser/geyser-tx-parse.ts';

const key = (b58: string) => decodeBase58(b58)!;
const filled = (byte: number) => new Uint8Array(32).fill(byte);
const tipIds = new Set(JITO_TIP_ACCOUNTS.map((a) => keyId(key(a))));
const SYSTEM = new Uint8Array(32);
const COMPUTE_BUDGET = key('ComputeBudget111111111111111111111111111111');

function data(kind: number, lamports: bigint, width: 'u8' | 'u32' = 'u32'): Uint8Array {
  const out = new Uint8Array(width === 'u8' ? 9 : 12 + (kind === 11 ? 40 : 0));
  const view = new DataView(out.buffer);
  if (width === 'u8') {
    out[0] = kind;
    view.setBigUint64(1, lamports, true);
  } else {
    view.setUint32(0, kind, true);
    view.setBigUint64(4, lamports, true);
  }
  return out;
}
const ix = (programIdIndex: number, accounts: number[], bytes: Uint8Array) => ({ programIdIndex, accounts: Uint8Array.from(accounts), data: bytes });

const payer = filled(1);
const cosigner = filled(2);
const tip = key(JITO_TIP_ACCOUNTS[0]!);
const dest = filled(4);
const tip2 = key(JITO_TIP_ACCOUNTS[7]!);

function tx(overrides: Partial<TxInfoLike> = {}, err?: unknown): TxInfoLike {
  return {
    isVote: false,
    transaction: {
      message: {
        header: { numRequiredSignatures: 2, numReadonlySignedAccounts: 1, numReadonlyUnsignedAccounts: 2 },
        accountKeys: [payer, cosigner, tip, dest, SYSTEM, COMPUTE_BUDGET],
        instructions: [
          ix(5, [], Uint8Array.from([2, 0x40, 0x0d, 0x03, 0x00])), // SetComputeUnitLimit: not a price
          ix(5, [], data(3, 123_456n, 'u8')),
          ix(4, [0, 2], data(2, 5_000n)), // tip, top level
          ix(4, [0, 3], data(2, 777n)), // plain transfer: not a tip
        ],
      },
    },
    meta: {
      err,
      innerInstructions: [
        {
          instructions: [
            ix(4, [0, 2], data(2, 1_000n)), // inner tip
            ix(4, [0, 1, 2], data(11, 250n)), // TransferWithSeed to a tip account
            ix(7, [0, 6], data(2, 42n)), // system program and tip account both from the lookup tables
          ],
        },
      ],
      loadedWritableAddresses: [tip2],
      loadedReadonlyAddresses: [SYSTEM],
    },
    ...overrides,
  };
}

describe('parseTransaction', () => {
  it('reads the CU price, tips from top-level and inner transfers, and the write-locked accounts', () => {
    const parsed = parseTransaction(tx(), tipIds)!;
    expect(parsed.cuPrice).toBe(123_456);
    expect(parsed.tipLamports).toBe(5_000 + 1_000 + 250 + 42);
    expect(parsed.writable).toEqual([payer, tip, dest, tip2].map(keyId));
    expect(parsed.failed).toBe(false);
  });
  it("hands on the update's signature (the transaction's id) for the signature watch, null when absent", () => {
    const signature = Uint8Array.from({ length: 64 }, (_, i) => i);
    expect(parseTransaction(tx({ signature }), tipIds)!.signature).toEqual(signature);
    expect(parseTransaction(tx(), tipIds)!.signature).toBeNull();
  });
  it('reports 0 without a SetComputeUnitPrice, flags failures, skips votes', () => {
    const noPrice = tx();
    const message = noPrice.transaction!.message!;
    const plain = { ...noPrice, transaction: { message: { ...message, instructions: message.instructions.slice(2) } } };
    expect(parseTransaction(plain, tipIds)!.cuPrice).toBe(0);
    expect(parseTransaction(tx({}, { err: Uint8Array.of(1) }), tipIds)!.failed).toBe(true);
    expect(parseTransaction(tx({ isVote: true }), tipIds)).toBeNull();
  });
  it('ignores a "price" instruction of another program and transfers to other accounts', () => {
    const t = tx();
    const message = t.transaction!.message!;
    const fake = {
      ...t,
      meta: { ...t.meta!, innerInstructions: [] },
      transaction: { message: { ...message, instructions: [ix(3, [], data(3, 9n, 'u8')), ix(4, [0, 3], data(2, 5n))] } },
    };
    expect(parseTransaction(fake, tipIds)).toMatchObject({ cuPrice: 0, tipLamports: 0 });
  });
});
