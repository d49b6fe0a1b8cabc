/**
 * Reads the common shape of a wire transaction without kit's codecs: signatures first, a legacy or
 * v0 message, every length in one byte. Every transaction the localnet makes itself has that
 * shape, and kit's codecs turn each address into text through BigInt, twice (once for the
 * signatures' map, once for the message): that was a fifth of the block producer's CPU.
 *
 * It answers exactly what kit's decoders answer (test/unit/wire-direct.test.ts compares them on
 * made and mutated transactions), or null whenever the bytes are anything else or anything it is
 * unsure of: trailing bytes, a longer length, another version, signatures that do not match the
 * signers. Then kit's codecs decode them, and their answers and errors stay the chain's.
 */
import type { getCompiledTransactionMessageDecoder, Transaction } from '@solana/kit';
import { encodeBase58 } from '../encoding/base58.ts';

/** The message as kit's compiled message decoder gives it. */
export type KitMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;

const SIGNATURE_BYTES = 64;
const ADDRESS_BYTES = 32;
/** A length above this takes more than one byte (shortvec): left to kit. */
const ONE_BYTE_LENGTH_MAX = 0x7f;
/** The first byte of a v0 message. */
const V0_PREFIX = 0x80;

/** A reader over `bytes` that answers null once anything is out of place. */
function cursor(bytes: Uint8Array) {
  let at = 0;
  return {
    get at() {
      return at;
    },
    /** One byte, or -1 past the end. */
    byte: (): number => (at < bytes.length ? bytes[at++]! : -1),
    /** A one-byte length, or -1 (past the end, or a longer encoding). */
    length(): number {
      const value = at < bytes.length ? bytes[at]! : -1;
      if (value < 0 || value > ONE_BYTE_LENGTH_MAX) return -1;
      at += 1;
      return value;
    },
    /** The next `n` bytes (a view), or null. */
    take(n: number): Uint8Array | null {
      if (n < 0 || at + n > bytes.length) return null;
      at += n;
      return bytes.subarray(at - n, at);
    },
    /** `n` addresses as text, or null. */
    addresses(n: number): string[] | null {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const key = this.take(ADDRESS_BYTES);
        if (key === null) return null;
        out.push(encodeBase58(key));
      }
      return out;
    },
  };
}

type Cursor = ReturnType<typeof cursor>;

/** `n` instructions as kit decodes them (no `accountIndices` or `data` key when empty), or null. */
function readInstructions(c: Cursor): Record<string, unknown>[] | null {
  const count = c.length();
  if (count < 0) return null;
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const programAddressIndex = c.byte();
    const accounts = c.take(c.length());
    const data = c.take(c.length());
    if (programAddressIndex < 0 || accounts === null || data === null) return null;
    out.push({
      programAddressIndex,
      ...(accounts.length > 0 ? { accountIndices: Array.from(accounts) } : {}),
      ...(data.length > 0 ? { data: data.slice() } : {}),
    });
  }
  return out;
}

/** A v0 message's address table lookups, or null. */
function readLookups(c: Cursor): Record<string, unknown>[] | null {
  const count = c.length();
  if (count < 0) return null;
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const table = c.addresses(1);
    const writable = c.take(c.length());
    const readonly = c.take(c.length());
    if (table === null || writable === null || readonly === null) return null;
    out.push({ lookupTableAddress: table[0], writableIndexes: Array.from(writable), readonlyIndexes: Array.from(readonly) });
  }
  return out;
}

/** The message read from `c`, as kit gives it, or null. */
function readMessage(c: Cursor, wire: Uint8Array): Record<string, unknown> | null {
  const first = wire[c.at];
  const v0 = first === V0_PREFIX;
  if (first === undefined || (first > ONE_BYTE_LENGTH_MAX && !v0)) return null;
  if (v0) c.byte();
  const header = c.take(3);
  const staticAccounts = c.addresses(c.length());
  const blockhash = c.take(ADDRESS_BYTES);
  const instructions = readInstructions(c);
  const lookups = v0 ? readLookups(c) : [];
  if (header === null || staticAccounts === null || blockhash === null || instructions === null || lookups === null) return null;
  return {
    version: v0 ? 0 : 'legacy',
    header: { numSignerAccounts: header[0], numReadonlySignerAccounts: header[1], numReadonlyNonSignerAccounts: header[2] },
    staticAccounts,
    lifetimeToken: encodeBase58(blockhash),
    instructions,
    ...(v0 && lookups.length > 0 ? { addressTableLookups: lookups } : {}),
  };
}

/** The transaction and its message as kit's decoders give them, or null: then decode with kit. */
export function readWireDirect(wire: Uint8Array): { transaction: Transaction; message: KitMessage } | null {
  const c = cursor(wire);
  const count = c.length();
  if (count < 1) return null;
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const signature = c.take(SIGNATURE_BYTES);
    if (signature === null) return null;
    signatures.push(signature.slice());
  }
  const messageStart = c.at;
  const message = readMessage(c, wire);
  if (message === null || c.at !== wire.length) return null;
  const signers = (message.staticAccounts as string[]).slice(0, (message.header as { numSignerAccounts: number }).numSignerAccounts);
  if (signers.length !== count) return null;
  const map: Record<string, Uint8Array | null> = {};
  signers.forEach((signer, i) => {
    const signature = signatures[i]!;
    map[signer] = signature.every((b) => b === 0) ? null : signature;
  });
  const transaction = { messageBytes: wire.slice(messageStart), signatures: Object.freeze(map) } as unknown as Transaction;
  return { transaction, message: message as unknown as KitMessage };
}
