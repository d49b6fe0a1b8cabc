/**
 * Typed states of the Token-2022 TLV extensions. Field names are exactly those of Agave's
 * `jsonParsed` output (`account-decoder-client-types` `UiExtension` variants, camelCase), so the
 * RPC surface can print them after turning bigints into JSON numbers; u64/i64 values are kept as
 * `bigint` here so nothing loses precision inside the service.
 */

/** Token account state as Agave names it (`UiAccountState`). */
export type UiAccountState = 'uninitialized' | 'initialized' | 'frozen';

/** One epoch-scheduled transfer fee (Token-2022 `TransferFee`, 18 bytes). */
export interface TransferFee {
  readonly epoch: bigint;
  readonly maximumFee: bigint;
  /** Fee in basis points of the transferred amount (10000 = 100%). */
  readonly transferFeeBasisPoints: number;
}

type Empty = Readonly<Record<string, never>>;

/** Extension name (Agave's jsonParsed `extension` value) -> state. */
export interface ExtensionStates {
  transferFeeConfig: {
    readonly transferFeeConfigAuthority: string | null;
    readonly withdrawWithheldAuthority: string | null;
    readonly withheldAmount: bigint;
    readonly olderTransferFee: TransferFee;
    readonly newerTransferFee: TransferFee;
  };
  transferFeeAmount: { readonly withheldAmount: bigint };
  mintCloseAuthority: { readonly closeAuthority: string | null };
  confidentialTransferMint: {
    readonly authority: string | null;
    readonly autoApproveNewAccounts: boolean;
    /** Base64 ElGamal public key. */
    readonly auditorElgamalPubkey: string | null;
  };
  confidentialTransferAccount: {
    readonly approved: boolean;
    readonly elgamalPubkey: string;
    readonly pendingBalanceLo: string;
    readonly pendingBalanceHi: string;
    readonly availableBalance: string;
    readonly decryptableAvailableBalance: string;
    readonly allowConfidentialCredits: boolean;
    readonly allowNonConfidentialCredits: boolean;
    readonly pendingBalanceCreditCounter: bigint;
    readonly maximumPendingBalanceCreditCounter: bigint;
    readonly expectedPendingBalanceCreditCounter: bigint;
    readonly actualPendingBalanceCreditCounter: bigint;
  };
  defaultAccountState: { readonly accountState: UiAccountState };
  immutableOwner: Empty;
  memoTransfer: { readonly requireIncomingTransferMemos: boolean };
  nonTransferable: Empty;
  interestBearingConfig: {
    readonly rateAuthority: string | null;
    readonly initializationTimestamp: bigint;
    /** Basis points per year. */
    readonly preUpdateAverageRate: number;
    readonly lastUpdateTimestamp: bigint;
    /** Basis points per year. */
    readonly currentRate: number;
  };
  cpiGuard: { readonly lockCpi: boolean };
  permanentDelegate: { readonly delegate: string | null };
  nonTransferableAccount: Empty;
  transferHook: { readonly authority: string | null; readonly programId: string | null };
  transferHookAccount: { readonly transferring: boolean };
  confidentialTransferFeeConfig: {
    readonly authority: string | null;
    readonly withdrawWithheldAuthorityElgamalPubkey: string | null;
    readonly harvestToMintEnabled: boolean;
    readonly withheldAmount: string;
  };
  confidentialTransferFeeAmount: { readonly withheldAmount: string };
  metadataPointer: { readonly authority: string | null; readonly metadataAddress: string | null };
  tokenMetadata: {
    readonly updateAuthority: string | null;
    readonly mint: string;
    readonly name: string;
    readonly symbol: string;
    readonly uri: string;
    readonly additionalMetadata: readonly (readonly [string, string])[];
  };
  groupPointer: { readonly authority: string | null; readonly groupAddress: string | null };
  tokenGroup: {
    readonly updateAuthority: string | null;
    readonly mint: string;
    readonly size: bigint;
    readonly maxSize: bigint;
  };
  groupMemberPointer: { readonly authority: string | null; readonly memberAddress: string | null };
  tokenGroupMember: { readonly mint: string; readonly group: string; readonly memberNumber: bigint };
  confidentialMintBurn: {
    readonly confidentialSupply: string;
    readonly decryptableSupply: string;
    readonly supplyElgamalPubkey: string;
    readonly pendingBurn: string;
  };
  scaledUiAmountConfig: {
    readonly authority: string | null;
    /** Agave prints this f64 as a string; kept numeric here. */
    readonly multiplier: number;
    readonly newMultiplierEffectiveTimestamp: bigint;
    readonly newMultiplier: number;
  };
  pausableConfig: { readonly authority: string | null; readonly paused: boolean };
  pausableAccount: Empty;
}

/** Agave's jsonParsed name of a parsed extension. */
export type ExtensionName = keyof ExtensionStates;

/** A parsed extension, discriminated by `extension`. */
export type KnownExtension = {
  [K in ExtensionName]: { readonly typeId: number; readonly extension: K; readonly state: ExtensionStates[K] };
}[ExtensionName];

/**
 * An entry whose type is unknown to this codec or whose value does not decode (wrong length,
 * bad UTF-8 ...). Agave prints such entries as `unparseableExtension`; the bytes are kept.
 */
export interface UnparseableExtension {
  readonly typeId: number;
  readonly extension: 'unparseableExtension';
  readonly raw: Uint8Array;
  readonly reason: string;
}

/** One TLV entry of a Token-2022 mint or token account. */
export type Token2022Extension = KnownExtension | UnparseableExtension;

/** The state type of extension `K`, for callers building worlds or tests. */
export type ExtensionState<K extends ExtensionName> = ExtensionStates[K];
