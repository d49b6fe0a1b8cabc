/**
 * Base layouts shared by SPL Token and Token-2022: the 82-byte Mint and the 165-byte token
 * Account (`Pack` structs with 4-byte `COption` tags), plus the Token-2022 account-type byte that
 * follows the base state when extensions are present.
 */
import type { ByteReader } from './byte-cursor.ts';
import type { UiAccountState } from './token-extension-states.ts';

/** Length of the base Mint state in bytes. */
export const MINT_SIZE_BYTES = 82;
/** Length of the base token Account state in bytes. */
export const TOKEN_ACCOUNT_SIZE_BYTES = 165;
/** Length of a Multisig account; Token-2022 never lets an extended account have this length. */
export const MULTISIG_SIZE_BYTES = 355;
/** Offset of the Token-2022 account-type byte (mints are zero-padded up to it). */
export const ACCOUNT_TYPE_OFFSET_BYTES = 165;
/** Offset of the first TLV entry. */
export const TLV_START_OFFSET_BYTES = ACCOUNT_TYPE_OFFSET_BYTES + 1;

/** Token-2022 `AccountType` byte values. */
export const ACCOUNT_TYPE = { uninitialized: 0, mint: 1, account: 2 } as const;
/** Which base state an extended account carries. */
export type AccountTypeName = keyof typeof ACCOUNT_TYPE;

/** Decoded base Mint state. */
export interface MintState {
  readonly mintAuthority: string | null;
  /** Raw supply in base units. */
  readonly supply: bigint;
  readonly decimals: number;
  readonly isInitialized: boolean;
  readonly freezeAuthority: string | null;
}

/** Decoded base token Account state. */
export interface TokenAccountState {
  readonly mint: string;
  readonly owner: string;
  /** Raw amount in base units. */
  readonly amount: bigint;
  readonly delegate: string | null;
  readonly state: UiAccountState;
  /** For wrapped-SOL accounts: the rent-exempt reserve in lamports; null otherwise. */
  readonly isNative: bigint | null;
  readonly delegatedAmount: bigint;
  readonly closeAuthority: string | null;
}

const STATES: readonly UiAccountState[] = ['uninitialized', 'initialized', 'frozen'];

/** Reads the 82-byte Mint; throws RangeError on a bad COption tag or short data. */
export function readMint(r: ByteReader): MintState {
  const mintAuthority = r.cOptionPubkey();
  const supply = r.u64();
  const decimals = r.u8();
  const initByte = r.u8();
  const freezeAuthority = r.cOptionPubkey();
  if (initByte > 1) throw new RangeError(`invalid is_initialized byte ${initByte}`);
  return { mintAuthority, supply, decimals, isInitialized: initByte === 1, freezeAuthority };
}

/** Reads the 165-byte token Account; throws RangeError on bad tags or short data. */
export function readTokenAccount(r: ByteReader): TokenAccountState {
  const mint = r.pubkey();
  const owner = r.pubkey();
  const amount = r.u64();
  const delegate = r.cOptionPubkey();
  const stateByte = r.u8();
  const isNative = r.cOptionU64();
  const delegatedAmount = r.u64();
  const closeAuthority = r.cOptionPubkey();
  const state = STATES[stateByte];
  if (state === undefined) throw new RangeError(`invalid account state byte ${stateByte}`);
  return { mint, owner, amount, delegate, state, isNative, delegatedAmount, closeAuthority };
}
