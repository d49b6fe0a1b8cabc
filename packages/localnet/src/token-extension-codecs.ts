/**
 * The localnet's own Token-2022 extension value codecs, built from kit's codec combinators and
 * written from the spl-token-2022 `Pod` layouts (little endian; `OptionalNonZeroPubkey` and
 * `OptionalNonZeroElGamalPubkey` are 32 zero bytes for None; `PodBool` one byte) and the Borsh
 * layout of spl-token-metadata-interface. Field names are Agave's jsonParsed names.
 *
 * Deliberately independent of the service's codec (`src/chain/token-extension-codecs.ts`): the
 * world's accounts are written with this one and read by the service with its own, so a layout
 * mistake in either shows up as a disagreement instead of passing both sides.
 */
import {
  addCodecSizePrefix,
  address,
  fixCodecSize,
  getAddressCodec,
  getArrayCodec,
  getBase64Codec,
  getBooleanCodec,
  getBytesCodec,
  getF64Codec,
  getI16Codec,
  getI64Codec,
  getStructCodec,
  getTupleCodec,
  getU16Codec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  transformCodec,
  type Codec,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { TOKEN_ACCOUNT_STATES } from './token-layout.ts';

/** Bytes of an ElGamal public key, an ElGamal ciphertext and an authenticated-encryption ciphertext. */
const ELGAMAL_PUBKEY_BYTES = 32;
const ELGAMAL_CIPHERTEXT_BYTES = 64;
const AE_CIPHERTEXT_BYTES = 36;

/** A token account state as Agave names it. */
export type AccountStateName = (typeof TOKEN_ACCOUNT_STATES)[number];

const isAllZero = (bytes: ReadonlyUint8Array): boolean => bytes.every((b) => b === 0);

/** A 32-byte address as a plain base58 string. */
const pubkey: Codec<string> = transformCodec(
  getAddressCodec(),
  (s: string) => address(s),
  (a) => a as string,
);
/** A 32-byte address, all zeros for None. */
const optionalPubkey: Codec<string | null> = transformCodec(
  fixCodecSize(getBytesCodec(), 32),
  (s: string | null) => (s === null ? new Uint8Array(32) : getAddressCodec().encode(address(s))),
  (bytes) => (isAllZero(bytes) ? null : getAddressCodec().decode(bytes)),
);
/** Fixed-size opaque bytes (ciphertexts, ElGamal keys) as base64, as Agave prints them. */
const base64Of = (size: number): Codec<string> => fixCodecSize(getBase64Codec(), size);
/** A 32-byte ElGamal key, all zeros for None. */
const optionalElgamalPubkey: Codec<string | null> = transformCodec(
  fixCodecSize(getBytesCodec(), ELGAMAL_PUBKEY_BYTES),
  (s: string | null) => (s === null ? new Uint8Array(ELGAMAL_PUBKEY_BYTES) : Uint8Array.from(Buffer.from(s, 'base64'))),
  (bytes) => (isAllZero(bytes) ? null : Buffer.from(bytes as Uint8Array).toString('base64')),
);
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
/** Borsh string: u32 length + UTF-8; invalid UTF-8 throws (Agave then prints unparseableExtension). */
const borshString: Codec<string> = addCodecSizePrefix(
  transformCodec(
    getBytesCodec(),
    (s: string) => new TextEncoder().encode(s),
    (bytes) => UTF8_STRICT.decode(bytes as Uint8Array),
  ),
  getU32Codec(),
);
/** Agave maps an out-of-range state byte to the default (uninitialized). */
const accountState: Codec<AccountStateName> = transformCodec(
  getU8Codec(),
  (s: AccountStateName) => TOKEN_ACCOUNT_STATES.indexOf(s),
  (n) => TOKEN_ACCOUNT_STATES[n] ?? 'uninitialized',
);
const u64 = getU64Codec();
const i64 = getI64Codec();
const bool = getBooleanCodec();
const transferFee = getStructCodec([
  ['epoch', u64],
  ['maximumFee', u64],
  ['transferFeeBasisPoints', getU16Codec()],
]);
const marker = getStructCodec([]);

/** Every extension the localnet writes and renders: TLV type id and value codec, keyed by Agave name. */
export const EXTENSION_CODECS = {
  transferFeeConfig: {
    typeId: 1,
    codec: getStructCodec([
      ['transferFeeConfigAuthority', optionalPubkey],
      ['withdrawWithheldAuthority', optionalPubkey],
      ['withheldAmount', u64],
      ['olderTransferFee', transferFee],
      ['newerTransferFee', transferFee],
    ]),
  },
  transferFeeAmount: { typeId: 2, codec: getStructCodec([['withheldAmount', u64]]) },
  mintCloseAuthority: { typeId: 3, codec: getStructCodec([['closeAuthority', optionalPubkey]]) },
  confidentialTransferMint: {
    typeId: 4,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['autoApproveNewAccounts', bool],
      ['auditorElgamalPubkey', optionalElgamalPubkey],
    ]),
  },
  confidentialTransferAccount: {
    typeId: 5,
    codec: getStructCodec([
      ['approved', bool],
      ['elgamalPubkey', base64Of(ELGAMAL_PUBKEY_BYTES)],
      ['pendingBalanceLo', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
      ['pendingBalanceHi', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
      ['availableBalance', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
      ['decryptableAvailableBalance', base64Of(AE_CIPHERTEXT_BYTES)],
      ['allowConfidentialCredits', bool],
      ['allowNonConfidentialCredits', bool],
      ['pendingBalanceCreditCounter', u64],
      ['maximumPendingBalanceCreditCounter', u64],
      ['expectedPendingBalanceCreditCounter', u64],
      ['actualPendingBalanceCreditCounter', u64],
    ]),
  },
  defaultAccountState: { typeId: 6, codec: getStructCodec([['accountState', accountState]]) },
  immutableOwner: { typeId: 7, codec: marker },
  memoTransfer: { typeId: 8, codec: getStructCodec([['requireIncomingTransferMemos', bool]]) },
  nonTransferable: { typeId: 9, codec: marker },
  interestBearingConfig: {
    typeId: 10,
    codec: getStructCodec([
      ['rateAuthority', optionalPubkey],
      ['initializationTimestamp', i64],
      ['preUpdateAverageRate', getI16Codec()],
      ['lastUpdateTimestamp', i64],
      ['currentRate', getI16Codec()],
    ]),
  },
  cpiGuard: { typeId: 11, codec: getStructCodec([['lockCpi', bool]]) },
  permanentDelegate: { typeId: 12, codec: getStructCodec([['delegate', optionalPubkey]]) },
  nonTransferableAccount: { typeId: 13, codec: marker },
  transferHook: {
    typeId: 14,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['programId', optionalPubkey],
    ]),
  },
  transferHookAccount: { typeId: 15, codec: getStructCodec([['transferring', bool]]) },
  confidentialTransferFeeConfig: {
    typeId: 16,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['withdrawWithheldAuthorityElgamalPubkey', optionalElgamalPubkey],
      ['harvestToMintEnabled', bool],
      ['withheldAmount', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
    ]),
  },
  confidentialTransferFeeAmount: { typeId: 17, codec: getStructCodec([['withheldAmount', base64Of(ELGAMAL_CIPHERTEXT_BYTES)]]) },
  metadataPointer: {
    typeId: 18,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['metadataAddress', optionalPubkey],
    ]),
  },
  tokenMetadata: {
    typeId: 19,
    codec: getStructCodec([
      ['updateAuthority', optionalPubkey],
      ['mint', pubkey],
      ['name', borshString],
      ['symbol', borshString],
      ['uri', borshString],
      ['additionalMetadata', getArrayCodec(getTupleCodec([borshString, borshString]), { size: getU32Codec() })],
    ]),
  },
  groupPointer: {
    typeId: 20,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['groupAddress', optionalPubkey],
    ]),
  },
  tokenGroup: {
    typeId: 21,
    codec: getStructCodec([
      ['updateAuthority', optionalPubkey],
      ['mint', pubkey],
      ['size', u64],
      ['maxSize', u64],
    ]),
  },
  groupMemberPointer: {
    typeId: 22,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['memberAddress', optionalPubkey],
    ]),
  },
  tokenGroupMember: {
    typeId: 23,
    codec: getStructCodec([
      ['mint', pubkey],
      ['group', pubkey],
      ['memberNumber', u64],
    ]),
  },
  confidentialMintBurn: {
    typeId: 24,
    codec: getStructCodec([
      ['confidentialSupply', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
      ['decryptableSupply', base64Of(AE_CIPHERTEXT_BYTES)],
      ['supplyElgamalPubkey', base64Of(ELGAMAL_PUBKEY_BYTES)],
      ['pendingBurn', base64Of(ELGAMAL_CIPHERTEXT_BYTES)],
    ]),
  },
  scaledUiAmountConfig: {
    typeId: 25,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['multiplier', getF64Codec()],
      ['newMultiplierEffectiveTimestamp', i64],
      ['newMultiplier', getF64Codec()],
    ]),
  },
  pausableConfig: {
    typeId: 26,
    codec: getStructCodec([
      ['authority', optionalPubkey],
      ['paused', bool],
    ]),
  },
  pausableAccount: { typeId: 27, codec: marker },
} as const;

/** Agave's jsonParsed name of an extension. */
export type ExtensionName = keyof typeof EXTENSION_CODECS;
/** What the encoder of extension `K` accepts (numbers or bigints for integers). */
export type ExtensionStateInput<K extends ExtensionName> = Parameters<(typeof EXTENSION_CODECS)[K]['codec']['encode']>[0];
/** What the decoder of extension `K` returns (u64/i64 as bigint). */
export type ExtensionState<K extends ExtensionName> = ReturnType<(typeof EXTENSION_CODECS)[K]['codec']['decode']>;

/** Name by TLV type id; a missing id is an extension the localnet does not know. */
export const EXTENSION_NAME_BY_TYPE_ID: ReadonlyMap<number, ExtensionName> = new Map(
  (Object.entries(EXTENSION_CODECS) as [ExtensionName, { typeId: number }][]).map(([name, c]) => [c.typeId, name]),
);
