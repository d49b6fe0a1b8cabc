/**
 * Mint and token account bytes for the localnet's world and RPC: a mint's base state through the
 * SPL Token program client's codec, a token account's (written thousands of times per world) and
 * every read through `token-layout.ts`, the Token-2022 TLV
 * extension area through `token-extension-codecs.ts`. Parsers never throw: malformed data yields
 * `ok: false`, or an `error` next to the entries decoded before the fault.
 */
import { address, isFixedSize } from '@solana/kit';
import { getMintEncoder } from '@solana-program/token';
import { EXTENSION_CODECS, EXTENSION_NAME_BY_TYPE_ID, type ExtensionName, type ExtensionState, type ExtensionStateInput } from './token-extension-codecs.ts';
import {
  encodeTokenAccountBase,
  MINT_SIZE_BYTES,
  parseMintBase,
  parseTokenAccountBase,
  TOKEN_ACCOUNT_SIZE_BYTES,
  TOKEN_ACCOUNT_STATES,
  type MintBase,
  type TokenAccountBase,
} from './token-layout.ts';

/** A multisig's length; Token-2022 pads an extended account that would have it. */
const MULTISIG_SIZE_BYTES = 355;
/** The account-type byte follows the 165-byte base (mints are zero-padded up to it). */
const ACCOUNT_TYPE_OFFSET_BYTES = 165;
const ACCOUNT_TYPE_BYTE = { mint: 1, account: 2 } as const;
/** TLV header: u16 type + u16 length; the type alone is the padding Token-2022 adds. */
const TLV_HEADER_BYTES = 4;
const TLV_TYPE_BYTES = 2;

/** A decoded extension, discriminated by its Agave name. */
export type KnownExtension = { [K in ExtensionName]: { readonly typeId: number; readonly extension: K; readonly state: ExtensionState<K> } }[ExtensionName];
/** An entry of unknown type or that does not decode; Agave prints it as `unparseableExtension`. */
export interface UnparseableExtension {
  readonly typeId: number;
  readonly extension: 'unparseableExtension';
  readonly raw: Uint8Array;
  readonly reason: string;
}
/** One TLV entry of a Token-2022 account. */
export type Token2022Extension = KnownExtension | UnparseableExtension;
/** A typed extension to write; the type id follows from the name. */
export type KnownExtensionInput = { [K in ExtensionName]: { readonly extension: K; readonly state: ExtensionStateInput<K> } }[ExtensionName];
/** An extension to write: typed, or raw bytes under any type id (to test the unknown). */
export type ExtensionInput = KnownExtensionInput | { readonly typeId: number; readonly raw: Uint8Array };

/** A parsed mint or token account. */
export type AccountParseResult<T> =
  | { readonly ok: true; readonly state: T; readonly extensions: readonly Token2022Extension[]; readonly error: string | null }
  | { readonly ok: false; readonly error: string };

function decodeEntry(typeId: number, value: Uint8Array): Token2022Extension {
  const name = EXTENSION_NAME_BY_TYPE_ID.get(typeId);
  if (name === undefined) return { typeId, extension: 'unparseableExtension', raw: value, reason: 'unknown extension type' };
  const { codec } = EXTENSION_CODECS[name];
  if (isFixedSize(codec) && codec.fixedSize !== value.length) {
    return { typeId, extension: 'unparseableExtension', raw: value, reason: `length ${value.length}, expected ${codec.fixedSize}` };
  }
  try {
    const [state, end] = codec.read(value, 0);
    if (end !== value.length) return { typeId, extension: 'unparseableExtension', raw: value, reason: `${value.length - end} trailing bytes` };
    return { typeId, extension: name, state } as KnownExtension;
  } catch (e) {
    return { typeId, extension: 'unparseableExtension', raw: value, reason: (e as Error).message };
  }
}

/** Walks TLV entries until the end, a zero type or a short fragment; an overrunning entry is an error. */
export function parseTlvEntries(tlv: Uint8Array): { readonly extensions: Token2022Extension[]; readonly error: string | null } {
  const extensions: Token2022Extension[] = [];
  const view = new DataView(tlv.buffer, tlv.byteOffset, tlv.byteLength);
  for (let at = 0; at + TLV_TYPE_BYTES <= tlv.length; ) {
    const typeId = view.getUint16(at, true);
    if (typeId === 0) break;
    if (at + TLV_HEADER_BYTES > tlv.length) return { extensions, error: `truncated TLV header at ${at}` };
    const start = at + TLV_HEADER_BYTES;
    const end = start + view.getUint16(at + TLV_TYPE_BYTES, true);
    if (end > tlv.length) return { extensions, error: `TLV entry type ${typeId} overruns the data at ${start}` };
    extensions.push(decodeEntry(typeId, tlv.subarray(start, end)));
    at = end;
  }
  return { extensions, error: null };
}

/** TLV entries (without the account-type byte); throws on invalid input such as a bad address. */
export function encodeTlvEntries(extensions: readonly ExtensionInput[]): Uint8Array {
  const parts = extensions.map((ext) => {
    const [typeId, value] = 'raw' in ext ? [ext.typeId, ext.raw] : encodeKnown(ext);
    const header = new DataView(new ArrayBuffer(TLV_HEADER_BYTES));
    header.setUint16(0, typeId, true);
    header.setUint16(TLV_TYPE_BYTES, value.length, true);
    return Buffer.concat([new Uint8Array(header.buffer), value]);
  });
  return new Uint8Array(Buffer.concat(parts));
}

function encodeKnown(ext: KnownExtensionInput): [number, Uint8Array] {
  const { typeId, codec } = EXTENSION_CODECS[ext.extension];
  return [typeId, Uint8Array.from((codec.encode as (state: unknown) => Uint8Array)(ext.state))];
}

function withExtensions(base: Uint8Array, type: keyof typeof ACCOUNT_TYPE_BYTE, extensions: readonly ExtensionInput[]): Uint8Array {
  if (extensions.length === 0) return base;
  const head = new Uint8Array(ACCOUNT_TYPE_OFFSET_BYTES + 1);
  head.set(base);
  head[ACCOUNT_TYPE_OFFSET_BYTES] = ACCOUNT_TYPE_BYTE[type];
  const out = Buffer.concat([head, encodeTlvEntries(extensions)]);
  return new Uint8Array(out.length === MULTISIG_SIZE_BYTES ? Buffer.concat([out, new Uint8Array(TLV_TYPE_BYTES)]) : out);
}

/** Bytes of a mint: 82 without extensions, else zero-padded base + account type + TLV. */
export function encodeMintAccount(mint: MintBase, extensions: readonly ExtensionInput[] = []): Uint8Array {
  const base = getMintEncoder().encode({
    mintAuthority: mint.mintAuthority === null ? null : address(mint.mintAuthority),
    supply: mint.supply,
    decimals: mint.decimals,
    isInitialized: mint.isInitialized,
    freezeAuthority: mint.freezeAuthority === null ? null : address(mint.freezeAuthority),
  });
  return withExtensions(Uint8Array.from(base), 'mint', extensions);
}

/** Bytes of a token account: 165 without extensions, else base + account type + TLV. */
export function encodeTokenAccount(account: TokenAccountBase, extensions: readonly ExtensionInput[] = []): Uint8Array {
  return withExtensions(encodeTokenAccountBase(account), 'account', extensions);
}

/** What the bytes hold, by length and (when extended) the account-type byte. */
function accountTypeOf(data: Uint8Array): 'mint' | 'account' | string {
  if (data.length === MINT_SIZE_BYTES) return 'mint';
  if (data.length === TOKEN_ACCOUNT_SIZE_BYTES) return 'account';
  if (data.length === MULTISIG_SIZE_BYTES) return 'data has the multisig length';
  if (data.length <= ACCOUNT_TYPE_OFFSET_BYTES) return `length ${data.length} is not a mint or token account`;
  const byte = data[ACCOUNT_TYPE_OFFSET_BYTES];
  return byte === ACCOUNT_TYPE_BYTE.mint ? 'mint' : byte === ACCOUNT_TYPE_BYTE.account ? 'account' : `invalid account type byte ${byte}`;
}

function parseAccount<T>(data: Uint8Array, want: 'mint' | 'account', readBase: (data: Uint8Array) => T): AccountParseResult<T> {
  const type = accountTypeOf(data);
  if (type !== want) return { ok: false, error: type === 'mint' || type === 'account' ? `account is a ${type}, not a ${want}` : type };
  let state: T;
  try {
    state = readBase(data);
  } catch (e) {
    return { ok: false, error: `invalid ${want} base state: ${(e as Error).message}` };
  }
  if (data.length <= ACCOUNT_TYPE_OFFSET_BYTES) return { ok: true, state, extensions: [], error: null };
  const { extensions, error } = parseTlvEntries(data.subarray(ACCOUNT_TYPE_OFFSET_BYTES + 1));
  return { ok: true, state, extensions, error };
}

/** Offsets of the bytes Agave validates: a mint's is_initialized, a token account's state. */
const MINT_INITIALIZED_OFFSET = 45;
const ACCOUNT_STATE_OFFSET = 108;

function readMintBase(data: Uint8Array): MintBase {
  const initialized = data[MINT_INITIALIZED_OFFSET] ?? 0;
  if (initialized > 1) throw new RangeError(`invalid is_initialized byte ${initialized}`);
  return parseMintBase(data);
}

function readTokenAccountBase(data: Uint8Array): TokenAccountBase {
  const state = data[ACCOUNT_STATE_OFFSET] ?? 0;
  if (state >= TOKEN_ACCOUNT_STATES.length) throw new RangeError(`invalid account state byte ${state}`);
  return parseTokenAccountBase(data);
}

/** Parses a mint (SPL Token 82 bytes, or Token-2022 with extensions). Never throws. */
export function parseMintAccount(data: Uint8Array): AccountParseResult<MintBase> {
  return parseAccount(data, 'mint', readMintBase);
}

/** Parses a token account (165 bytes, or Token-2022 with extensions). Never throws. */
export function parseTokenAccount(data: Uint8Array): AccountParseResult<TokenAccountBase> {
  return parseAccount(data, 'account', readTokenAccountBase);
}

/** The first extension named `name`, typed; undefined when absent. */
export function findExtension<K extends ExtensionName>(
  extensions: readonly Token2022Extension[],
  name: K,
): Extract<KnownExtension, { extension: K }> | undefined {
  return extensions.find((e) => e.extension === name) as Extract<KnownExtension, { extension: K }> | undefined;
}
