/**
 * The direct wire reader (src/chain/wire-direct.ts) against kit's decoders: on every transaction
 * of the shapes the localnet and clients make (legacy and v0, with and without address lookup
 * tables, signed and unsigned) it answers exactly what kit answers, and on every other input
 * (truncated, trailing bytes, two-byte lengths, another version, signatures that do not match the
 * signers) it answers null, so kit decides.
 */
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { readWireDirect } from '../../src/chain/wire-direct.ts';
import { readWireWithKit, WireDecodeError } from '../../src/chain/wire-transaction.ts';
import { buildSignedWire, computeBudgetIxs, transferCheckedIx, transferSolIx } from '../../src/signing/world-transactions.ts';
import { createPrng, createWorldKeys } from '../../src/signing/world-keys.ts';

const keys = createWorldKeys('wire-direct');
const prng = createPrng('wire-direct');
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const BLOCKHASH = keys.address('blockhash');

/** Instructions like the block producer's: compute budget, SOL and token transfers, a second signer now and then. */
function instructions(i: number): { ixs: Instruction[]; payer: ReturnType<typeof keys.signer>; signers: ReturnType<typeof keys.signer>[] } {
  const payer = keys.signer(`payer/${i % 7}`);
  const other = keys.signer(`other/${i % 5}`);
  const ixs: Instruction[] = [];
  if (prng.next() < 0.7) ixs.push(...computeBudgetIxs(prng.int(1_000, 200_000), BigInt(prng.int(0, 1_000_000))));
  ixs.push(transferSolIx(payer.address, keys.address(`to/${i}`), BigInt(prng.int(1, 1e9))));
  const twoSigners = prng.next() < 0.5;
  const token = { mint: keys.address('mint'), amount: BigInt(prng.int(1, 1e6)), decimals: 6, programId: TOKEN };
  if (twoSigners)
    ixs.push(transferCheckedIx({ ...token, source: keys.address(`vault/${i % 3}`), destination: keys.address('user'), authority: other.address }));
  if (prng.next() < 0.3) ixs.push({ programAddress: address(keys.address('memo')) });
  return { ixs, payer, signers: twoSigners ? [other] : [] };
}

/** The same instructions as an unsigned v0 message, its non-signer accounts looked up in a table when `lookups`. */
function v0Wire(i: number, lookups: boolean): Uint8Array {
  const { ixs, payer } = instructions(i);
  let message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(payer.address), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(ixs, m),
  );
  if (lookups) {
    const table = [keys.address(`to/${i}`), keys.address('mint'), keys.address('user')].map((a) => address(a)) as Address[];
    message = compressTransactionMessageUsingAddressLookupTables(message, { [address(keys.address('table'))]: table }) as typeof message;
  }
  return Uint8Array.from(getTransactionEncoder().encode(compileTransaction(message)));
}

function wires(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < 150; i++) {
    const { ixs, payer, signers } = instructions(i);
    out.push(buildSignedWire(payer, ixs, BLOCKHASH, signers).wire);
  }
  for (let i = 0; i < 40; i++) out.push(v0Wire(i, i % 2 === 0));
  return out;
}

const kitOrError = (wire: Uint8Array) => {
  try {
    return readWireWithKit(wire);
  } catch (err) {
    return err;
  }
};

describe('direct wire reader', () => {
  const all = wires();

  it('answers what kit answers on legacy and v0 transactions, signed or not, with or without lookup tables', () => {
    const lookedUp = all.filter((w) => (readWireWithKit(w).message as { addressTableLookups?: unknown[] }).addressTableLookups?.length);
    expect(lookedUp.length).toBeGreaterThan(0);
    for (const wire of all) {
      const direct = readWireDirect(wire);
      expect(direct).not.toBeNull();
      expect(direct).toEqual(readWireWithKit(wire));
    }
  });

  it('answers null or what kit answers on every truncation and on trailing bytes', () => {
    for (const wire of all.slice(0, 10).concat(all.slice(-4))) {
      for (let n = 0; n < wire.length; n++) {
        const cut = wire.subarray(0, n);
        const direct = readWireDirect(cut);
        if (direct !== null) expect(direct).toEqual(kitOrError(cut));
      }
      expect(readWireDirect(Uint8Array.from([...wire, 0]))).toBeNull();
    }
  });

  it('answers null or what kit answers when bytes are changed, inserted or removed anywhere (kit refusing means null)', () => {
    const fuzz = createPrng('wire-direct/fuzz');
    for (let i = 0; i < 1000; i++) {
      const wire = [...fuzz.pick(all)];
      const at = fuzz.int(0, wire.length - 1);
      const roll = fuzz.next();
      if (roll < 0.5) wire[at] = fuzz.int(0, 255);
      else if (roll < 0.75) wire.splice(at, 0, fuzz.int(0, 255));
      else wire.splice(at, 1);
      const bytes = Uint8Array.from(wire);
      const direct = readWireDirect(bytes);
      if (direct !== null) expect(direct).toEqual(kitOrError(bytes));
    }
  });

  it('leaves to kit two-byte lengths, other versions and signatures that do not match the signers', () => {
    const payer = keys.signer('payer/long');
    const long = buildSignedWire(payer, [{ programAddress: address(keys.address('memo')), data: new Uint8Array(200).fill(7) }], BLOCKHASH).wire;
    expect(readWireDirect(long)).toBeNull();
    expect((readWireWithKit(long).message as { instructions: unknown[] }).instructions[0]).toMatchObject({ data: new Uint8Array(200).fill(7) });
    // One signature: the message starts at byte 65.
    const single = all.find((w) => w[0] === 1)!;
    const v1 = Uint8Array.from(single);
    v1[65] = 0x81;
    expect(readWireDirect(v1)).toBeNull();
    // Two signatures for a message with one signer: kit refuses it, and so the chain does.
    const doubled = Uint8Array.from([2, ...single.subarray(1, 65), ...single.subarray(1)]);
    expect(readWireDirect(doubled)).toBeNull();
    expect(kitOrError(doubled)).toBeInstanceOf(WireDecodeError);
  });
});
