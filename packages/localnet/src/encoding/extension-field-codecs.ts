/**
 * Field codecs of the Token-2022 extension values, built from kit's codec combinators and written
 * from the spl-token-2022 `Pod` layouts (little endian; `OptionalNonZeroPubkey` and
 * `OptionalNonZeroElGamalPubkey` are 32 zero bytes for None; `PodBool` one byte) and the Borsh
 * layout of spl-token-metadata-interface. Values come out as Agave's jsonParsed prints them.
 */
import {
  addCodecSizePrefix,
  address,
  type Codec,
  fixCodecSize,
  getAddressCodec,
  getBase64Codec,
  getBytesCodec,
  getStructCodec,
  getU16Codec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  type ReadonlyUint8Array,
  transformCodec,
} from '@solana/kit';
import { type AccountStateName, TOKEN_ACCOUNT_STATES } from './token-layout.ts';

/** Bytes of an ElGamal public key. */
export const ELGAMAL_PUBKEY_BYTES = 32;
/** Bytes of an ElGamal ciphertext. */
export const ELGAMAL_CIPHERTEXT_BYTES = 64;
/** Bytes of an authenticated-encryption ciphertext. */
export const AE_CIPHERTEXT_BYTES = 36;

const isAllZero = (bytes: ReadonlyUint8Array): boolean => bytes.every((b) => b === 0);

/** A 32-byte address as a plain base58 string. */
export const pubkey: Codec<string> = transformCodec(
  getAddressCodec(),
  (s: string) => address(s),
  (a) => a as string,
);
/** A 32-byte address, all zeros for None. */
export const optionalPubkey: Codec<string | null> = transformCodec(
  fixCodecSize(getBytesCodec(), 32),
  (s: string | null) => (s === null ? new Uint8Array(32) : getAddressCodec().encode(address(s))),
  (bytes) => (isAllZero(bytes) ? null : getAddressCodec().decode(bytes)),
);
/** Fixed-size opaque bytes (ciphertexts, ElGamal keys) as base64, as Agave prints them. */
export const base64Of = (size: number): Codec<string> => fixCodecSize(getBase64Codec(), size);
/** A 32-byte ElGamal key, all zeros for None. */
export const optionalElgamalPubkey: Codec<string | null> = transformCodec(
  fixCodecSize(getBytesCodec(), ELGAMAL_PUBKEY_BYTES),
  (s: string | null) => (s === null ? new Uint8Array(ELGAMAL_PUBKEY_BYTES) : Uint8Array.from(Buffer.from(s, 'base64'))),
  (bytes) => (isAllZero(bytes) ? null : Buffer.from(bytes as Uint8Array).toString('base64')),
);
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
/** Borsh string: u32 length + UTF-8; invalid UTF-8 throws (Agave then prints unparseableExtension). */
export const borshString: Codec<string> = addCodecSizePrefix(
  transformCodec(
    getBytesCodec(),
    (s: string) => new TextEncoder().encode(s),
    (bytes) => UTF8_STRICT.decode(bytes as Uint8Array),
  ),
  getU32Codec(),
);
/** A token account state byte; Agave maps an out-of-range byte to the default (uninitialized). */
export const accountState: Codec<AccountStateName> = transformCodec(
  getU8Codec(),
  (s: AccountStateName) => TOKEN_ACCOUNT_STATES.indexOf(s),
  (n) => TOKEN_ACCOUNT_STATES[n] ?? 'uninitialized',
);
/** One `TransferFee` (the older and the newer of a transfer-fee config). */
export const transferFee = getStructCodec([
  ['epoch', getU64Codec()],
  ['maximumFee', getU64Codec()],
  ['transferFeeBasisPoints', getU16Codec()],
]);
