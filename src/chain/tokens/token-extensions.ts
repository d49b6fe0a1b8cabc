/**
 * Token-2022 account decoder: base Mint / Account layouts plus the TLV extension area, decoded
 * into typed extensions named as Agave's `jsonParsed` names them.
 *
 * Used by the risk analysis (typed states with bigints; `toUiExtension` gives the JSON-safe
 * `{ extension, state }` Agave prints). Parsers never throw: malformed data yields `ok: false` or
 * an `error` next to whatever was decoded before the fault. The service never writes token
 * accounts; tests build them with the localnet's independent encoder or by hand.
 */
import { createByteReader } from './byte-cursor.ts';
import { EXTENSION_CODECS, EXTENSION_CODECS_BY_TYPE_ID, type ExtensionCodec } from './token-extension-codecs.ts';
import type { ExtensionName, ExtensionStates, KnownExtension, Token2022Extension } from './token-extension-states.ts';
import {
  ACCOUNT_TYPE,
  ACCOUNT_TYPE_OFFSET_BYTES,
  MINT_SIZE_BYTES,
  MULTISIG_SIZE_BYTES,
  TLV_START_OFFSET_BYTES,
  TOKEN_ACCOUNT_SIZE_BYTES,
  readMint,
  readTokenAccount,
  type AccountTypeName,
  type MintState,
  type TokenAccountState,
} from './token-layouts.ts';

export * from './token-extension-states.ts';
export * from './token-layouts.ts';
export { EXTENSION_CODECS } from './token-extension-codecs.ts';

/** Bytes of a TLV header: u16 type + u16 length. */
const TLV_HEADER_BYTES = 4;
/** Bytes of the TLV type field alone (also the padding Token-2022 adds to dodge the multisig size). */
const TLV_TYPE_BYTES = 2;

/** Result of reading the extension area of an account. */
export interface ExtensionsParseResult {
  /** From the account-type byte; from the length for un-extended 82/165-byte accounts; null if unknown. */
  readonly accountType: AccountTypeName | null;
  /** Entries decoded before any fault, in TLV order. */
  readonly extensions: readonly Token2022Extension[];
  /** Why the data is malformed; null when it is well formed. */
  readonly error: string | null;
}

/** A parsed mint or token account. */
export type AccountParseResult<T> =
  | { readonly ok: true; readonly state: T; readonly extensions: readonly Token2022Extension[]; readonly error: string | null }
  | { readonly ok: false; readonly error: string };

function decodeEntry(typeId: number, value: Uint8Array): Token2022Extension {
  const codec = EXTENSION_CODECS_BY_TYPE_ID.get(typeId);
  if (codec === undefined) return { typeId, extension: 'unparseableExtension', raw: value, reason: 'unknown extension type' };
  if (codec.size !== null && value.length !== codec.size) {
    return { typeId, extension: 'unparseableExtension', raw: value, reason: `length ${value.length}, expected ${codec.size}` };
  }
  try {
    const r = createByteReader(value);
    const state = codec.decode(r);
    return { typeId, extension: codec.name, state } as KnownExtension;
  } catch (e) {
    return { typeId, extension: 'unparseableExtension', raw: value, reason: (e as Error).message };
  }
}

/**
 * Walks TLV entries (the bytes after the account-type byte). Stops at the end, at an
 * `Uninitialized` (type 0) entry, or at a short trailing fragment; a header or value that overruns
 * the data is an error, reported with the entries decoded before it.
 */
export function parseTlvEntries(tlv: Uint8Array): { readonly extensions: Token2022Extension[]; readonly error: string | null } {
  const extensions: Token2022Extension[] = [];
  const view = new DataView(tlv.buffer, tlv.byteOffset, tlv.byteLength);
  let at = 0;
  while (at + TLV_TYPE_BYTES <= tlv.length) {
    const typeId = view.getUint16(at, true);
    if (typeId === 0) break;
    if (at + TLV_HEADER_BYTES > tlv.length) return { extensions, error: `truncated TLV header at ${at}` };
    const length = view.getUint16(at + TLV_TYPE_BYTES, true);
    const start = at + TLV_HEADER_BYTES;
    if (start + length > tlv.length) {
      return { extensions, error: `TLV entry type ${typeId} length ${length} overruns data at ${start}` };
    }
    extensions.push(decodeEntry(typeId, tlv.subarray(start, start + length)));
    at = start + length;
  }
  return { extensions, error: null };
}

/** Reads the Token-2022 extensions of a whole mint or token account (any owner's data is safe). */
export function parseToken2022Extensions(data: Uint8Array): ExtensionsParseResult {
  if (data.length === MINT_SIZE_BYTES) return { accountType: 'mint', extensions: [], error: null };
  if (data.length === TOKEN_ACCOUNT_SIZE_BYTES) return { accountType: 'account', extensions: [], error: null };
  if (data.length === MULTISIG_SIZE_BYTES) return { accountType: null, extensions: [], error: 'data has the multisig length' };
  if (data.length < TLV_START_OFFSET_BYTES) {
    return { accountType: null, extensions: [], error: `length ${data.length} is not a mint or token account` };
  }
  const typeByte = data[ACCOUNT_TYPE_OFFSET_BYTES] ?? 0;
  const accountType = typeByte === ACCOUNT_TYPE.mint ? 'mint' : typeByte === ACCOUNT_TYPE.account ? 'account' : null;
  if (accountType === null) return { accountType: null, extensions: [], error: `invalid account type byte ${typeByte}` };
  const { extensions, error } = parseTlvEntries(data.subarray(TLV_START_OFFSET_BYTES));
  return { accountType, extensions, error };
}

function parseBase<T>(data: Uint8Array, want: AccountTypeName, size: number, read: typeof readMint | typeof readTokenAccount): AccountParseResult<T> {
  const ext = parseToken2022Extensions(data);
  if (ext.accountType !== want) {
    return { ok: false, error: ext.error ?? `account is a ${ext.accountType ?? 'unknown'}, not a ${want}` };
  }
  try {
    const state = read(createByteReader(data.subarray(0, size))) as T;
    return { ok: true, state, extensions: ext.extensions, error: ext.error };
  } catch (e) {
    return { ok: false, error: `invalid ${want} base state: ${(e as Error).message}` };
  }
}

/** Parses a mint (SPL Token 82 bytes, or Token-2022 with extensions). Never throws. */
export function parseMintAccount(data: Uint8Array): AccountParseResult<MintState> {
  return parseBase<MintState>(data, 'mint', MINT_SIZE_BYTES, readMint);
}

/** Parses a token account (165 bytes, or Token-2022 with extensions). Never throws. */
export function parseTokenAccount(data: Uint8Array): AccountParseResult<TokenAccountState> {
  return parseBase<TokenAccountState>(data, 'account', TOKEN_ACCOUNT_SIZE_BYTES, readTokenAccount);
}

/** The first extension named `name`, typed; undefined when absent. */
export function findExtension<K extends ExtensionName>(
  extensions: readonly Token2022Extension[],
  name: K,
): { readonly typeId: number; readonly extension: K; readonly state: ExtensionStates[K] } | undefined {
  return extensions.find((e) => e.extension === name) as { readonly typeId: number; readonly extension: K; readonly state: ExtensionStates[K] } | undefined;
}

/** JSON value as Agave prints it. */
export type UiJson = string | number | boolean | null | readonly UiJson[] | { readonly [k: string]: UiJson };

function toUiValue(v: unknown): UiJson {
  if (typeof v === 'bigint') return Number(v); // Agave prints u64/i64 fields as JSON numbers.
  if (Array.isArray(v)) return v.map(toUiValue);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toUiValue(x)]));
  }
  return v as UiJson;
}

/** One extension as Agave's jsonParsed `{ extension, state }` (no `state` for marker extensions). */
export function toUiExtension(ext: Token2022Extension): { readonly extension: string; readonly state?: UiJson } {
  if (ext.extension === 'unparseableExtension') return { extension: 'unparseableExtension' };
  const codec = EXTENSION_CODECS[ext.extension] as ExtensionCodec<ExtensionName>;
  if (codec.size === 0) return { extension: ext.extension };
  if (ext.extension === 'scaledUiAmountConfig') {
    const s = ext.state;
    return { extension: ext.extension, state: { ...(toUiValue(s) as object), multiplier: String(s.multiplier), newMultiplier: String(s.newMultiplier) } };
  }
  return { extension: ext.extension, state: toUiValue(ext.state) };
}
