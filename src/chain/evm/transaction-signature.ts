/**
 * Our relayer's transactions signed in native code: the transaction serialized by viem as its own
 * local account does, its hash taken by the native Keccak and signed by libsecp256k1 (RFC 6979,
 * low s), then serialized again with the signature: the bytes `account.signTransaction` makes,
 * without its JavaScript Keccak and curve (about 1 ms of the event loop per transaction: every
 * `exact` Base settlement, every channel deposit, claim and sweep). A unit test holds both equal.
 */
import { serializeTransaction, type TransactionSerializable } from 'viem';
import { keccak256 } from './keccak-256.ts';
import { signDigestNative } from './secp256k1-recover.ts';

/** The transaction types signed here, the ones the relayer sends; any other (a blob transaction, signed without its sidecars) is left to viem. */
const NATIVE_TYPES: ReadonlySet<string> = new Set(['legacy', 'eip2930', 'eip1559']);

/** The hash of a serialized (signed) transaction, 0x hex: its id on chain. */
export function transactionHashOf(serialized: `0x${string}`): `0x${string}` {
  return `0x${keccak256(Buffer.from(serialized.slice(2), 'hex')).toString('hex')}`;
}

/**
 * `tx` signed by `secretKey` (32 bytes) and serialized, 0x hex; null for a transaction of another
 * type (or without one) or where the addon did not load: then the viem account signs it.
 */
export function signTransactionNative(tx: TransactionSerializable, secretKey: Uint8Array): `0x${string}` | null {
  if (tx.type === undefined || !NATIVE_TYPES.has(tx.type)) return null;
  const signature = signDigestNative(keccak256(Buffer.from(serializeTransaction(tx).slice(2), 'hex')), secretKey);
  if (!signature) return null;
  const yParity = signature[64]! - 27;
  const r = `0x${signature.toString('hex', 0, 32)}` as const;
  const s = `0x${signature.toString('hex', 32, 64)}` as const;
  return serializeTransaction(tx, { r, s, yParity, v: BigInt(27 + yParity) });
}
