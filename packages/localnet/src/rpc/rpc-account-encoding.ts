/**
 * Agave's `UiAccount` rendering: base58 / base64 data (with dataSlice) and jsonParsed for SPL
 * Token and Token-2022 mints and token accounts (Token-2022 extensions via `token-accounts.ts`);
 * other accounts fall back to base64 under jsonParsed, as Agave.
 */
import { encodeBase58 } from '../encoding/base58.ts';
import { parseMintAccount, parseTokenAccount, type Token2022Extension } from '../encoding/token-accounts.ts';
import type { AccountData } from '../chain/chain-accounts.ts';
import { classifyTokenData, SPL_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, uiTokenAmount } from '../encoding/token-layout.ts';
import { invalidParams, RpcError, RPC_CODES } from './rpc-params.ts';

/** Agave's rentEpoch for rent-exempt accounts: u64::MAX. */
export const RENT_EXEMPT_RENT_EPOCH = 18446744073709551615n;
/** Agave refuses base58 account data above this size. */
const MAX_BASE58_BYTES = 128;

/** Account data encodings; `binary` is Agave's legacy default: a bare base58 string. */
export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed' | 'base64+zstd';
/** Accepted encoding names. */
export const ACCOUNT_ENCODINGS: readonly AccountEncoding[] = ['binary', 'base58', 'base64', 'jsonParsed', 'base64+zstd'];

/** Optional data slice. */
export interface DataSlice {
  readonly offset: number;
  readonly length: number;
}

/** Reads a `dataSlice` config value. */
export function dataSliceOf(config: Record<string, unknown>): DataSlice | null {
  const v = config.dataSlice;
  if (v === undefined || v === null) return null;
  const s = v as { offset?: unknown; length?: unknown };
  if (typeof s !== 'object' || !Number.isInteger(s.offset) || !Number.isInteger(s.length) || (s.offset as number) < 0 || (s.length as number) < 0) {
    throw invalidParams('Invalid param: dataSlice must be { offset, length } with non-negative integers');
  }
  return { offset: s.offset as number, length: s.length as number };
}

/** Rejects an encoding the localnet cannot produce. */
export function checkEncoding(encoding: AccountEncoding): void {
  if (encoding === 'base64+zstd') throw invalidParams('Invalid params: base64+zstd encoding is not supported by the localnet; use base64');
}

/** Token decimals lookup for parsing token accounts. */
export type MintDecimalsReader = (mint: string) => number | null;

/** An account as Agave's UiAccount. */
export function encodeAccount(
  account: AccountData,
  encoding: AccountEncoding,
  slice: DataSlice | null,
  decimalsOf: MintDecimalsReader,
): Record<string, unknown> {
  const common = {
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EXEMPT_RENT_EPOCH,
    space: account.data.length,
  };
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenProgramAccount(account, decimalsOf);
    if (parsed !== null) return { data: parsed, ...common };
  }
  const data = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data;
  if (encoding === 'base58' || encoding === 'binary') {
    if (data.length > MAX_BASE58_BYTES) {
      throw new RpcError(RPC_CODES.invalidRequest, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    }
    return { data: encoding === 'binary' ? encodeBase58(data) : [encodeBase58(data), 'base58'], ...common };
  }
  return { data: [Buffer.from(data).toString('base64'), 'base64'], ...common };
}

/** jsonParsed `{ program, parsed, space }` of a token mint or account; null when not one. */
export function parseTokenProgramAccount(account: AccountData, decimalsOf: MintDecimalsReader): Record<string, unknown> | null {
  const kind = classifyTokenData(account.owner, account.data);
  if (kind === null) return null;
  const program = account.owner === SPL_TOKEN_PROGRAM_ID ? 'spl-token' : account.owner === TOKEN_2022_PROGRAM_ID ? 'spl-token-2022' : null;
  if (program === null) return null;
  if (kind === 'mint') {
    const mint = parseMintAccount(account.data);
    if (!mint.ok || !mint.state.isInitialized) return null;
    const m = mint.state;
    const info: Record<string, unknown> = {
      mintAuthority: m.mintAuthority,
      supply: m.supply.toString(),
      decimals: m.decimals,
      isInitialized: m.isInitialized,
      freezeAuthority: m.freezeAuthority,
    };
    if (mint.extensions.length > 0) info.extensions = mint.extensions.map(toUiExtension);
    return { program, parsed: { type: 'mint', info }, space: account.data.length };
  }
  const parsed = parseTokenAccount(account.data);
  if (!parsed.ok || parsed.state.state === 'uninitialized') return null;
  const decimals = decimalsOf(parsed.state.mint);
  if (decimals === null) return null;
  const a = parsed.state;
  const info: Record<string, unknown> = {
    isNative: a.isNative !== null,
    mint: a.mint,
    owner: a.owner,
    state: a.state,
    tokenAmount: uiTokenAmount(a.amount, decimals),
  };
  if (a.delegate !== null) {
    info.delegate = a.delegate;
    info.delegatedAmount = uiTokenAmount(a.delegatedAmount, decimals);
  }
  if (a.isNative !== null) info.rentExemptReserve = uiTokenAmount(a.isNative, 9);
  if (a.closeAuthority !== null) info.closeAuthority = a.closeAuthority;
  if (parsed.extensions.length > 0) info.extensions = parsed.extensions.map(toUiExtension);
  return { program, parsed: { type: 'account', info }, space: account.data.length };
}

/** JSON as Agave prints it: u64/i64 fields as numbers. */
function jsonNumbers(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(jsonNumbers);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonNumbers(v)]));
  return value;
}

/** One extension as Agave's jsonParsed `{ extension, state }`; marker extensions have no state. */
export function toUiExtension(ext: Token2022Extension): { readonly extension: string; readonly state?: unknown } {
  if (ext.extension === 'unparseableExtension') return { extension: ext.extension };
  const state = ext.state as Record<string, unknown>;
  if (Object.keys(state).length === 0) return { extension: ext.extension };
  // Agave prints the two f64 multipliers as strings.
  if (ext.extension === 'scaledUiAmountConfig') {
    return {
      extension: ext.extension,
      state: { ...(jsonNumbers(state) as object), multiplier: String(ext.state.multiplier), newMultiplier: String(ext.state.newMultiplier) },
    };
  }
  return { extension: ext.extension, state: jsonNumbers(state) };
}
