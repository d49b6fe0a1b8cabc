/**
 * Per-extension value codecs for Token-2022 TLV entries: type id, Agave name, fixed value size
 * (null for variable-length TokenMetadata) and the decoder of the value bytes. Layouts follow
 * the `Pod` structs of spl-token-2022 (little endian, `OptionalNonZeroPubkey` = 32 zero bytes for
 * None, `PodBool` = 1 byte) and the Borsh layout of spl-token-metadata-interface.
 */
import type { ByteReader } from './byte-cursor.ts';
import type { ExtensionName, ExtensionStates, TransferFee, UiAccountState } from './token-extension-states.ts';

/** ElGamal ciphertext size (two Ristretto points). */
const ELGAMAL_CIPHERTEXT_BYTES = 64;
/** ElGamal public key size. */
const ELGAMAL_PUBKEY_BYTES = 32;
/** Authenticated-encryption ciphertext size (nonce 12 + ciphertext 24). */
const AE_CIPHERTEXT_BYTES = 36;

/** Codec of one extension value. */
export interface ExtensionCodec<K extends ExtensionName> {
  readonly typeId: number;
  readonly name: K;
  /** Exact value length in bytes; null when variable (TokenMetadata). */
  readonly size: number | null;
  decode(r: ByteReader): ExtensionStates[K];
}

const ACCOUNT_STATES: readonly UiAccountState[] = ['uninitialized', 'initialized', 'frozen'];

const readFee = (r: ByteReader): TransferFee => ({ epoch: r.u64(), maximumFee: r.u64(), transferFeeBasisPoints: r.u16() });

/** Builds a codec for a value-less marker extension (NonTransferable, ImmutableOwner ...). */
function marker<K extends ExtensionName>(typeId: number, name: K): ExtensionCodec<K> {
  return { typeId, name, size: 0, decode: () => ({}) as ExtensionStates[K] };
}

/** Builds a codec for `authority + address` pointer extensions (64 bytes). */
function pointer<K extends 'metadataPointer' | 'groupPointer' | 'groupMemberPointer'>(
  typeId: number,
  name: K,
  field: 'metadataAddress' | 'groupAddress' | 'memberAddress',
): ExtensionCodec<K> {
  return {
    typeId,
    name,
    size: 64,
    decode: (r) => ({ authority: r.optionalPubkey(), [field]: r.optionalPubkey() }) as unknown as ExtensionStates[K],
  };
}

/** Every extension this codec knows, keyed by Agave name. */
export const EXTENSION_CODECS: { readonly [K in ExtensionName]: ExtensionCodec<K> } = {
  transferFeeConfig: {
    typeId: 1,
    name: 'transferFeeConfig',
    size: 108,
    decode: (r) => ({
      transferFeeConfigAuthority: r.optionalPubkey(),
      withdrawWithheldAuthority: r.optionalPubkey(),
      withheldAmount: r.u64(),
      olderTransferFee: readFee(r),
      newerTransferFee: readFee(r),
    }),
  },
  transferFeeAmount: {
    typeId: 2,
    name: 'transferFeeAmount',
    size: 8,
    decode: (r) => ({ withheldAmount: r.u64() }),
  },
  mintCloseAuthority: {
    typeId: 3,
    name: 'mintCloseAuthority',
    size: 32,
    decode: (r) => ({ closeAuthority: r.optionalPubkey() }),
  },
  confidentialTransferMint: {
    typeId: 4,
    name: 'confidentialTransferMint',
    size: 65,
    decode: (r) => ({
      authority: r.optionalPubkey(),
      autoApproveNewAccounts: r.bool(),
      auditorElgamalPubkey: r.optionalBase64(ELGAMAL_PUBKEY_BYTES),
    }),
  },
  confidentialTransferAccount: {
    typeId: 5,
    name: 'confidentialTransferAccount',
    size: 295,
    decode: (r) => ({
      approved: r.bool(),
      elgamalPubkey: r.base64(ELGAMAL_PUBKEY_BYTES),
      pendingBalanceLo: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
      pendingBalanceHi: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
      availableBalance: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
      decryptableAvailableBalance: r.base64(AE_CIPHERTEXT_BYTES),
      allowConfidentialCredits: r.bool(),
      allowNonConfidentialCredits: r.bool(),
      pendingBalanceCreditCounter: r.u64(),
      maximumPendingBalanceCreditCounter: r.u64(),
      expectedPendingBalanceCreditCounter: r.u64(),
      actualPendingBalanceCreditCounter: r.u64(),
    }),
  },
  defaultAccountState: {
    typeId: 6,
    name: 'defaultAccountState',
    size: 1,
    // Agave maps an out-of-range byte to the default state (uninitialized); so do we.
    decode: (r) => ({ accountState: ACCOUNT_STATES[r.u8()] ?? 'uninitialized' }),
  },
  immutableOwner: marker(7, 'immutableOwner'),
  memoTransfer: {
    typeId: 8,
    name: 'memoTransfer',
    size: 1,
    decode: (r) => ({ requireIncomingTransferMemos: r.bool() }),
  },
  nonTransferable: marker(9, 'nonTransferable'),
  interestBearingConfig: {
    typeId: 10,
    name: 'interestBearingConfig',
    size: 52,
    decode: (r) => ({
      rateAuthority: r.optionalPubkey(),
      initializationTimestamp: r.i64(),
      preUpdateAverageRate: r.i16(),
      lastUpdateTimestamp: r.i64(),
      currentRate: r.i16(),
    }),
  },
  cpiGuard: {
    typeId: 11,
    name: 'cpiGuard',
    size: 1,
    decode: (r) => ({ lockCpi: r.bool() }),
  },
  permanentDelegate: {
    typeId: 12,
    name: 'permanentDelegate',
    size: 32,
    decode: (r) => ({ delegate: r.optionalPubkey() }),
  },
  nonTransferableAccount: marker(13, 'nonTransferableAccount'),
  transferHook: {
    typeId: 14,
    name: 'transferHook',
    size: 64,
    decode: (r) => ({ authority: r.optionalPubkey(), programId: r.optionalPubkey() }),
  },
  transferHookAccount: {
    typeId: 15,
    name: 'transferHookAccount',
    size: 1,
    decode: (r) => ({ transferring: r.bool() }),
  },
  confidentialTransferFeeConfig: {
    typeId: 16,
    name: 'confidentialTransferFeeConfig',
    size: 129,
    decode: (r) => ({
      authority: r.optionalPubkey(),
      withdrawWithheldAuthorityElgamalPubkey: r.optionalBase64(ELGAMAL_PUBKEY_BYTES),
      harvestToMintEnabled: r.bool(),
      withheldAmount: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
    }),
  },
  confidentialTransferFeeAmount: {
    typeId: 17,
    name: 'confidentialTransferFeeAmount',
    size: 64,
    decode: (r) => ({ withheldAmount: r.base64(ELGAMAL_CIPHERTEXT_BYTES) }),
  },
  metadataPointer: pointer(18, 'metadataPointer', 'metadataAddress'),
  tokenMetadata: {
    typeId: 19,
    name: 'tokenMetadata',
    size: null,
    decode: (r) => {
      const updateAuthority = r.optionalPubkey();
      const mint = r.pubkey();
      const name = r.string();
      const symbol = r.string();
      const uri = r.string();
      const count = r.u32();
      // Each pair needs at least 8 bytes: a count beyond that is garbage, not a huge allocation.
      if (count * 8 > r.remaining) throw new RangeError(`additionalMetadata count ${count} exceeds data`);
      const additionalMetadata: (readonly [string, string])[] = [];
      for (let i = 0; i < count; i += 1) additionalMetadata.push([r.string(), r.string()]);
      return { updateAuthority, mint, name, symbol, uri, additionalMetadata };
    },
  },
  groupPointer: pointer(20, 'groupPointer', 'groupAddress'),
  tokenGroup: {
    typeId: 21,
    name: 'tokenGroup',
    size: 80,
    decode: (r) => ({ updateAuthority: r.optionalPubkey(), mint: r.pubkey(), size: r.u64(), maxSize: r.u64() }),
  },
  groupMemberPointer: pointer(22, 'groupMemberPointer', 'memberAddress'),
  tokenGroupMember: {
    typeId: 23,
    name: 'tokenGroupMember',
    size: 72,
    decode: (r) => ({ mint: r.pubkey(), group: r.pubkey(), memberNumber: r.u64() }),
  },
  confidentialMintBurn: {
    typeId: 24,
    name: 'confidentialMintBurn',
    size: 196,
    decode: (r) => ({
      confidentialSupply: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
      decryptableSupply: r.base64(AE_CIPHERTEXT_BYTES),
      supplyElgamalPubkey: r.base64(ELGAMAL_PUBKEY_BYTES),
      pendingBurn: r.base64(ELGAMAL_CIPHERTEXT_BYTES),
    }),
  },
  scaledUiAmountConfig: {
    typeId: 25,
    name: 'scaledUiAmountConfig',
    size: 56,
    decode: (r) => ({
      authority: r.optionalPubkey(),
      multiplier: r.f64(),
      newMultiplierEffectiveTimestamp: r.i64(),
      newMultiplier: r.f64(),
    }),
  },
  pausableConfig: {
    typeId: 26,
    name: 'pausableConfig',
    size: 33,
    decode: (r) => ({ authority: r.optionalPubkey(), paused: r.bool() }),
  },
  pausableAccount: marker(27, 'pausableAccount'),
};

/** Codec by TLV type id; a missing id is an extension this codec does not know. */
export const EXTENSION_CODECS_BY_TYPE_ID: ReadonlyMap<number, ExtensionCodec<ExtensionName>> = new Map(
  (Object.values(EXTENSION_CODECS) as ExtensionCodec<ExtensionName>[]).map((c) => [c.typeId, c]),
);
