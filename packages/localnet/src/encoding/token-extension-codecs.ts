/**
 * The localnet's own Token-2022 extension value codecs: TLV type id and value layout of every
 * extension, keyed by Agave's jsonParsed name, from the field codecs in `extension-field-codecs.ts`.
 *
 * Deliberately independent of the service's codec (`src/chain/tokens/token-extension-codecs.ts`): the
 * world's accounts are written with this one and read by the service with its own, so a layout
 * mistake in either shows up as a disagreement instead of passing both sides.
 */
import { getArrayCodec, getBooleanCodec, getF64Codec, getI16Codec, getI64Codec, getStructCodec, getTupleCodec, getU32Codec, getU64Codec } from '@solana/kit';
import {
  AE_CIPHERTEXT_BYTES,
  accountState,
  base64Of,
  borshString,
  ELGAMAL_CIPHERTEXT_BYTES,
  ELGAMAL_PUBKEY_BYTES,
  optionalElgamalPubkey,
  optionalPubkey,
  pubkey,
  transferFee,
} from './extension-field-codecs.ts';

const u64 = getU64Codec();
const i64 = getI64Codec();
const bool = getBooleanCodec();
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
