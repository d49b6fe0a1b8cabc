/**
 * Account reads and writes of the chain core over LiteSVM, keeping the token-account index in
 * step with every write (world building and executed transactions alike).
 *
 * LiteSVM's TypeScript wrapper converts every address through kit's base58 codec, which goes
 * through BigInt and validates twice per key; a world build writes thousands of accounts and that
 * codec was most of its CPU. So accounts go through the wrapper's native instance with raw 32-byte
 * keys, converted by the localnet's own (byte-wise) base58.
 */
import { Account, type LiteSVM } from 'litesvm';
import type { ChainIndexes, TokenAccountKey } from './chain-indexes.ts';
import { addressToBytes, bytesToAddress } from '../encoding/base58.ts';
import { classifyTokenData, isTokenProgram } from '../encoding/token-layout.ts';

/** An account as the world builder sets it. */
export interface AccountInput {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable?: boolean;
}

/**
 * What writing an account derives from its address and fields (its key bytes, its owner's, its
 * token-index entry): base58 both ways was most of a write. Worked out once for an account
 * written again and again with the same fields: a world snapshot played back at every start.
 */
export interface AccountKeys {
  readonly address: Uint8Array;
  readonly owner: Uint8Array;
  /** The token index's entry; null when the account is not a token account. */
  readonly token: TokenAccountKey | null;
}

/** An account as read back. */
export interface AccountData {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable: boolean;
}

/** The part of LiteSVM's native instance used here (the wrapper keeps it in `inner`). */
interface NativeSvm {
  getAccount(pubkey: Uint8Array): Account | null;
  setAccount(pubkey: Uint8Array, account: Account): void;
  getProgramAccounts(programId: Uint8Array): { readonly address: Uint8Array; account(): Account }[];
}

/** The native instance behind the wrapper; fails loudly if a LiteSVM upgrade moved it. */
export function nativeSvm(svm: LiteSVM): NativeSvm {
  const inner = (svm as unknown as { inner?: Partial<NativeSvm> }).inner;
  if (typeof inner?.getAccount !== 'function' || typeof inner.setAccount !== 'function' || typeof inner.getProgramAccounts !== 'function') {
    throw new Error('litesvm: native instance not found (wrapper layout changed)');
  }
  return inner as NativeSvm;
}

/** The data of a balance snapshot's account that no token program owns (see `getBalanceAccount`). */
const NO_DATA = new Uint8Array(0);

/**
 * Loaders whose programs never change: native programs and programs of the retired loaders (no
 * instruction upgrades or closes them). The runtime refuses any change to an executable account's
 * lamports, so such a program's snapshot row is the same in every transaction; only a write
 * through `setAccount` (world building) replaces it.
 */
const IMMUTABLE_LOADERS = new Set([
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
]);
/** Bounded like the repeated addresses: a world holds a handful of programs. */
const IMMUTABLE_PROGRAMS_MAX = 1024;

/**
 * Addresses that repeat (the handful of programs that own everything, the few mints every token
 * account names), both ways: base58 is most of the cost of writing an account, and a world's
 * thousands of token accounts name the same owner program and mint. Bounded: a hostile
 * transaction could create many programs or mints.
 */
const REPEATED_ADDRESSES_MAX = 1024;
const repeatedText = new Map<string, string>();
const repeatedBytes = new Map<string, Uint8Array>();

function repeatedAddressText(bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let text = repeatedText.get(key);
  if (text === undefined) {
    text = bytesToAddress(bytes);
    if (repeatedText.size < REPEATED_ADDRESSES_MAX) repeatedText.set(key, text);
  }
  return text;
}

/** The bytes of a repeated address (shared: LiteSVM copies what it is given). */
function repeatedAddressBytes(text: string): Uint8Array {
  let bytes = repeatedBytes.get(text);
  if (bytes === undefined) {
    bytes = addressToBytes(text);
    if (repeatedBytes.size < REPEATED_ADDRESSES_MAX) repeatedBytes.set(text, bytes);
  }
  return bytes;
}

function ownerOf(account: Account): string {
  return repeatedAddressText(account.owner());
}

function toAccountData(a: Account): AccountData {
  // LiteSVM hands out a fresh copy of the data, so exposing it is safe.
  return { lamports: a.lamports(), data: a.data(), owner: ownerOf(a), executable: a.executable() };
}

/** The token index's entry of an account: its mint, owner and program, or null for any other account. */
function tokenKeyOf(account: { readonly owner: string; readonly data: Uint8Array }): TokenAccountKey | null {
  if (classifyTokenData(account.owner, account.data) !== 'account') return null;
  // The mint and owner fields of the base layout (checked long enough by classifyTokenData).
  return {
    mint: repeatedAddressText(account.data.subarray(0, 32)),
    owner: bytesToAddress(account.data.subarray(32, 64)),
    programId: account.owner,
  };
}

/** What writing `account` at `address` derives (see `AccountKeys`). */
export function accountKeysOf(address: string, account: AccountInput): AccountKeys {
  return { address: addressToBytes(address), owner: repeatedAddressBytes(account.owner), token: tokenKeyOf(account) };
}

/**
 * `accountKeysOf` from what a world snapshot recorded beside the account (`recorded`: the address's
 * 32 bytes and a token account's mint and owner, null for any other account), with no base58
 * either way: decoding 5,448 addresses and encoding their mints and owners was most of preparing a
 * snapshot for playback, which every process that plays one pays (a spawned service, `npm start`).
 * The recorder took them from `accountKeysOf`; the snapshot's digest and code key keep them so.
 */
export function accountKeysFromRecord(
  account: AccountInput,
  recorded: { readonly address: Uint8Array; readonly token: readonly [mint: string, owner: string] | null },
): AccountKeys {
  const token = recorded.token === null ? null : { mint: recorded.token[0], owner: recorded.token[1], programId: account.owner };
  return { address: recorded.address, owner: repeatedAddressBytes(account.owner), token };
}

/** Account access bound to one LiteSVM and its indexes. */
export function createChainAccounts(svm: LiteSVM, indexes: ChainIndexes) {
  const native = nativeSvm(svm);
  /** Told of every address written from now on (the saved state's list of what changed). */
  let onWrite: ((address: string) => void) | null = null;
  /** Snapshot rows of programs of the immutable loaders (see IMMUTABLE_LOADERS). */
  const programs = new Map<string, AccountData>();

  function getAccount(address: string): AccountData | null {
    const a = native.getAccount(addressToBytes(address));
    return a === null ? null : toAccountData(a);
  }

  /**
   * An account for a balance snapshot: its data only when a token program owns it (a token row
   * reads nothing else). Every transaction snapshots each of its keys twice, programs among them,
   * and copying a program's data out of LiteSVM was most of that.
   */
  function getBalanceAccount(address: string): AccountData | null {
    const known = programs.get(address);
    if (known !== undefined) return known;
    const a = native.getAccount(addressToBytes(address));
    if (a === null) return null;
    const owner = ownerOf(a);
    const row = { lamports: a.lamports(), data: isTokenProgram(owner) ? a.data() : NO_DATA, owner, executable: a.executable() };
    // A program's row (LiteSVM copies its whole code out for every read) is kept once read.
    if (row.executable && IMMUTABLE_LOADERS.has(owner) && programs.size < IMMUTABLE_PROGRAMS_MAX) programs.set(address, row);
    return row;
  }

  /** Tells the watcher of `address`'s write and puts its token-index entry (null: none). */
  function index(address: string, token: TokenAccountKey | null): void {
    onWrite?.(address);
    indexes.setTokenAccount(address, token);
  }

  return {
    getAccount,
    getBalanceAccount,
    /** Re-reads `address` and updates the token-account index entry. */
    reindex: (address: string): void => {
      const account = getAccount(address);
      index(address, account ? tokenKeyOf(account) : null);
    },
    /** Creates or overwrites an account, bypassing the runtime (world building); `keys` as `accountKeysOf` gives them, when known. */
    setAccount(address: string, account: AccountInput, keys: AccountKeys = accountKeysOf(address, account)): void {
      programs.delete(address);
      native.setAccount(keys.address, new Account(account.lamports, account.data, keys.owner, account.executable ?? false, 0n));
      // LiteSVM keeps a copy of what it is given, so the written account is indexed without reading it back.
      index(address, keys.token);
    },
    /** All accounts owned by a program (a LiteSVM scan, as costly as on a real node). */
    getProgramAccounts(programId: string): { address: string; account: AccountData }[] {
      return native.getProgramAccounts(addressToBytes(programId)).map((a) => ({ address: bytesToAddress(a.address), account: toAccountData(a.account()) }));
    },
    /** Calls `listener` with every address written from now on (null stops). */
    watchWrites(listener: ((address: string) => void) | null): void {
      onWrite = listener;
    },
    /** Raw bytes of an account (lookup tables), or null. */
    readData(address: string): Uint8Array | null {
      return getAccount(address)?.data ?? null;
    },
  };
}

/** The account access `createChainAccounts` returns. */
export type ChainAccounts = ReturnType<typeof createChainAccounts>;
