/**
 * Base-field layout of SPL Token and Token-2022 mints and token accounts. Extensions (the TLV
 * area of Token-2022 accounts) are not read here; `token-accounts.ts` owns those.
 */
import { addressToBytes, encodeBase58 } from './base58.ts';

/** SPL Token program id. */
export const SPL_TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Token-2022 program id. */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Associated Token Account program id. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

/** Size in bytes of a mint without extensions. */
export const MINT_SIZE_BYTES = 82;
/** Size in bytes of a token account without extensions. */
export const TOKEN_ACCOUNT_SIZE_BYTES = 165;
/** Token-2022 writes the account type right after the 165-byte base (mints are zero-padded to it). */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

/** Mint base fields, as in Agave's jsonParsed `mint` info (amounts as bigint here). */
export interface MintBase {
  readonly mintAuthority: string | null;
  readonly supply: bigint;
  readonly decimals: number;
  readonly isInitialized: boolean;
  readonly freezeAuthority: string | null;
}

/** Token account state values in layout order. */
export const TOKEN_ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;
/** A token account state as Agave names it. */
export type AccountStateName = (typeof TOKEN_ACCOUNT_STATES)[number];

/** Token account base fields. */
export interface TokenAccountBase {
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
  readonly delegate: string | null;
  readonly state: AccountStateName;
  /** Rent-exempt reserve lamports when the account holds wrapped SOL, else null. */
  readonly isNative: bigint | null;
  readonly delegatedAmount: bigint;
  readonly closeAuthority: string | null;
}

/** True for the two token program ids. */
export function isTokenProgram(programId: string): boolean {
  return programId === SPL_TOKEN_PROGRAM_ID || programId === TOKEN_2022_PROGRAM_ID;
}

/** What a token-program-owned account holds, judged by size and (Token-2022) account type byte. */
export function classifyTokenData(programId: string, data: Uint8Array): 'mint' | 'account' | null {
  if (!isTokenProgram(programId)) return null;
  if (data.length === MINT_SIZE_BYTES) return 'mint';
  if (data.length === TOKEN_ACCOUNT_SIZE_BYTES) return 'account';
  if (programId !== TOKEN_2022_PROGRAM_ID || data.length <= ACCOUNT_TYPE_OFFSET) return null;
  const type = data[ACCOUNT_TYPE_OFFSET];
  if (type === ACCOUNT_TYPE_MINT) return 'mint';
  if (type === ACCOUNT_TYPE_ACCOUNT) return 'account';
  return null;
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function optionalKey(data: Uint8Array, offset: number): string | null {
  const tag = view(data).getUint32(offset, true);
  return tag === 1 ? encodeBase58(data.subarray(offset + 4, offset + 36)) : null;
}

/** Reads the 82-byte mint base; throws on short data. */
export function parseMintBase(data: Uint8Array): MintBase {
  if (data.length < MINT_SIZE_BYTES) throw new Error(`mint data too short: ${data.length} bytes`);
  const dv = view(data);
  return {
    mintAuthority: optionalKey(data, 0),
    supply: dv.getBigUint64(36, true),
    decimals: data[44] ?? 0,
    isInitialized: data[45] === 1,
    freezeAuthority: optionalKey(data, 46),
  };
}

/** Reads the 165-byte token account base; throws on short data. */
export function parseTokenAccountBase(data: Uint8Array): TokenAccountBase {
  if (data.length < TOKEN_ACCOUNT_SIZE_BYTES) throw new Error(`token account data too short: ${data.length} bytes`);
  const dv = view(data);
  const nativeTag = dv.getUint32(109, true);
  return {
    mint: encodeBase58(data.subarray(0, 32)),
    owner: encodeBase58(data.subarray(32, 64)),
    amount: dv.getBigUint64(64, true),
    delegate: optionalKey(data, 72),
    state: TOKEN_ACCOUNT_STATES[data[108] ?? 0] ?? 'uninitialized',
    isNative: nativeTag === 1 ? dv.getBigUint64(113, true) : null,
    delegatedAmount: dv.getBigUint64(121, true),
    closeAuthority: optionalKey(data, 129),
  };
}

/** Writes `key` as a COption<Pubkey> (u32 tag, then 32 bytes, zeros when absent). */
function writeOptionalKey(out: Uint8Array, offset: number, key: string | null): void {
  if (key === null) return;
  view(out).setUint32(offset, 1, true);
  out.set(addressToBytes(key), offset + 4);
}

/**
 * The 165-byte token account base, mirroring `parseTokenAccountBase`. Written by hand rather than
 * by the token program client's encoder, whose address codec (BigInt base58, validating each key
 * twice) was most of the world build's CPU: the world writes thousands of token accounts.
 */
export function encodeTokenAccountBase(account: TokenAccountBase): Uint8Array {
  const out = new Uint8Array(TOKEN_ACCOUNT_SIZE_BYTES);
  const dv = view(out);
  out.set(addressToBytes(account.mint), 0);
  out.set(addressToBytes(account.owner), 32);
  dv.setBigUint64(64, account.amount, true);
  writeOptionalKey(out, 72, account.delegate);
  out[108] = TOKEN_ACCOUNT_STATES.indexOf(account.state);
  if (account.isNative !== null) {
    dv.setUint32(109, 1, true);
    dv.setBigUint64(113, account.isNative, true);
  }
  dv.setBigUint64(121, account.delegatedAmount, true);
  writeOptionalKey(out, 129, account.closeAuthority);
  return out;
}

/** Agave's `uiAmountString`: the amount with the decimal point placed, trailing zeros trimmed. */
export function formatUiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac.length > 0 ? `${whole}.${frac}` : whole;
}

/** Agave's `uiTokenAmount` object for an amount (uiAmount is a lossy float, as in Agave). */
export function uiTokenAmount(
  amount: bigint,
  decimals: number,
): {
  amount: string;
  decimals: number;
  uiAmount: number;
  uiAmountString: string;
} {
  const uiAmountString = formatUiAmountString(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
