/**
 * Runs one decoded transaction in LiteSVM and turns the result into an `ExecutedTransaction`:
 * snapshots SOL and token balances of every account key before and after, reads logs, compute
 * units and inner instructions from LiteSVM's metadata, recomputes the fee. A failed transaction
 * whose fee LiteSVM charged has landed (Agave records it with `err`); one whose fee was not
 * charged (bad signature, unloadable accounts) was rejected and leaves no trace.
 */
import { FailedTransactionMetadata, type Account, type LiteSVM, type TransactionMetadata } from 'litesvm';
import { assertIsFullySignedTransaction } from '@solana/kit';
import type { AccountData } from './chain-accounts.ts';
import type { CompiledInstructionData, ExecutedTransaction, TokenBalanceData } from './types.ts';
import type { DecodedTransaction } from './wire-transaction.ts';
import { classifyTokenData, parseMintBase, parseTokenAccountBase } from '../encoding/token-layout.ts';
import { computeTransactionFee } from './fee.ts';
import { toAgaveTransactionError } from './transaction-error.ts';
import { bytesToAddress } from '../encoding/base58.ts';

const VOTE_PROGRAM_ID = 'Vote111111111111111111111111111111111111111';

/** Balances of the account keys at one moment. */
export interface BalanceSnapshot {
  readonly balances: readonly bigint[];
  readonly tokenBalances: readonly TokenBalanceData[];
}

/**
 * Reads an account by address; the chain's own reader skips kit's slow address codec. Only the
 * data of accounts a token program owns is read here (others may come back with empty data).
 */
export type AccountReader = (address: string) => AccountData | null;

/** Reads SOL and token balances of `keys` (token rows only for live token accounts). */
export function snapshotBalances(read: AccountReader, keys: readonly string[]): BalanceSnapshot {
  const decimalsByMint = new Map<string, number | null>();
  const balances: bigint[] = [];
  const tokenBalances: TokenBalanceData[] = [];
  for (const [accountIndex, key] of keys.entries()) {
    const account = read(key);
    if (account === null) {
      balances.push(0n);
      continue;
    }
    balances.push(account.lamports);
    const programId = account.owner;
    if (classifyTokenData(programId, account.data) !== 'account') continue;
    const base = parseTokenAccountBase(account.data);
    const decimals = mintDecimals(read, base.mint, decimalsByMint);
    if (decimals === null) continue;
    tokenBalances.push({ accountIndex, mint: base.mint, owner: base.owner, programId, amount: base.amount.toString(), decimals });
  }
  return { balances, tokenBalances };
}

function mintDecimals(read: AccountReader, mint: string, cache: Map<string, number | null>): number | null {
  const cached = cache.get(mint);
  if (cached !== undefined) return cached;
  const account = read(mint);
  const decimals = account !== null && classifyTokenData(account.owner, account.data) === 'mint' ? parseMintBase(account.data).decimals : null;
  cache.set(mint, decimals);
  return decimals;
}

/** Where and when a transaction executes. */
export interface ExecutionContext {
  readonly slot: bigint;
  readonly index: number;
  readonly blockTime: number;
  readonly wire: Uint8Array;
}

/** A simulation's answer as LiteSVM's native instance gives it (the wrapper's own converts every account through kit). */
interface NativeSimulated {
  meta(): TransactionMetadata;
  postAccounts(): { readonly address: Uint8Array; account(): Account }[];
}

/** The part of LiteSVM's native instance that runs wire bytes (the wrapper keeps it in `inner`). */
interface NativeRunner {
  getSigverify(): boolean;
  sendLegacyTransaction(wire: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  sendVersionedTransaction(wire: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  simulateLegacyTransaction(wire: Uint8Array): NativeSimulated | FailedTransactionMetadata;
  simulateVersionedTransaction(wire: Uint8Array): NativeSimulated | FailedTransactionMetadata;
}

function nativeRunner(svm: LiteSVM): NativeRunner {
  const inner = (svm as unknown as { inner?: Partial<NativeRunner> }).inner;
  if (typeof inner?.sendVersionedTransaction !== 'function' || typeof inner.simulateVersionedTransaction !== 'function') {
    throw new Error('litesvm: native instance not found (wrapper layout changed)');
  }
  return inner as NativeRunner;
}

/**
 * Runs the wire bytes as they came (the wrapper would encode the decoded transaction back into
 * the same bytes first), with the wrapper's own check: under sigverify, an absent signature throws.
 */
function runWire<K extends 'send' | 'simulate'>(svm: LiteSVM, decoded: DecodedTransaction, wire: Uint8Array, kind: K) {
  const native = nativeRunner(svm);
  if (native.getSigverify()) assertIsFullySignedTransaction(decoded.transaction);
  const legacy = decoded.version === 'legacy';
  if (kind === 'send') return legacy ? native.sendLegacyTransaction(wire) : native.sendVersionedTransaction(wire);
  return legacy ? native.simulateLegacyTransaction(wire) : native.simulateVersionedTransaction(wire);
}

/** Outcome of `runTransaction`. */
export type RunOutcome =
  | { readonly landed: true; readonly tx: ExecutedTransaction }
  | { readonly landed: false; readonly err: unknown; readonly logs: readonly string[]; readonly unitsConsumed: bigint };

/** Executes the transaction in LiteSVM (state changes are committed when it lands). */
export function runTransaction(svm: LiteSVM, read: AccountReader, decoded: DecodedTransaction, ctx: ExecutionContext): RunOutcome {
  const pre = snapshotBalances(read, decoded.accountKeys);
  let result: TransactionMetadata | FailedTransactionMetadata;
  try {
    result = runWire(svm, decoded, ctx.wire, 'send') as TransactionMetadata | FailedTransactionMetadata;
  } catch {
    // kit's wrapper throws before execution when a required signature is absent.
    return { landed: false, err: 'SignatureFailure', logs: [], unitsConsumed: 0n };
  }
  const failed = result instanceof FailedTransactionMetadata;
  const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
  const err = result instanceof FailedTransactionMetadata ? toAgaveTransactionError(result.err()) : null;
  const post = snapshotBalances(read, decoded.accountKeys);
  if (failed && !((post.balances[0] ?? 0n) < (pre.balances[0] ?? 0n))) {
    return { landed: false, err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed() };
  }
  const tx: ExecutedTransaction = {
    signature: decoded.signatures[0] ?? '',
    signatures: decoded.signatures,
    slot: ctx.slot,
    index: ctx.index,
    isVote: decoded.instructions.some((ix) => decoded.accountKeys[ix.programIdIndex] === VOTE_PROGRAM_ID),
    err,
    fee: computeTransactionFee(decoded.header.numRequiredSignatures, decoded.instructions, decoded.accountKeys),
    computeUnitsConsumed: meta.computeUnitsConsumed(),
    logs: meta.logs(),
    header: decoded.header,
    accountKeys: decoded.accountKeys,
    recentBlockhash: decoded.recentBlockhash,
    instructions: decoded.instructions,
    innerInstructions: readInnerInstructions(meta),
    preBalances: pre.balances,
    postBalances: post.balances,
    preTokenBalances: pre.tokenBalances,
    postTokenBalances: post.tokenBalances,
    wire: ctx.wire,
    blockTime: ctx.blockTime,
    version: decoded.version,
    loadedAddresses: decoded.loadedAddresses,
  };
  return { landed: true, tx };
}

/** Agave's `innerInstructions`: only top-level instructions that made CPIs appear. */
export function readInnerInstructions(meta: TransactionMetadata): ExecutedTransaction['innerInstructions'] {
  const out: { index: number; instructions: CompiledInstructionData[] }[] = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: Uint8Array.from(ix.data()), stackHeight: inner.stackHeight() };
      }),
    });
  });
  return out;
}

/** An account as a simulation left it. */
export interface PostAccount {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable: boolean;
}

const NO_POST_ACCOUNTS: () => ReadonlyMap<string, PostAccount> = () => new Map();

/** Result of a simulation, nothing committed. */
export interface SimulationOutcome {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly unitsConsumed: bigint;
  readonly innerInstructions: ExecutedTransaction['innerInstructions'];
  /**
   * Post-simulation state of the accounts the transaction loaded, read when asked: a preflight
   * never asks, and copying them (program data among them) out of LiteSVM was most of its cost.
   */
  readonly postAccounts: () => ReadonlyMap<string, PostAccount>;
  readonly returnData: { readonly programId: Uint8Array; readonly data: Uint8Array } | null;
}

/** Simulates the wire bytes in LiteSVM with signature verification on or off for this call only. */
export function simulateDecoded(svm: LiteSVM, decoded: DecodedTransaction, wire: Uint8Array, sigVerify: boolean): SimulationOutcome {
  svm.withSigverify(sigVerify);
  try {
    const result = runWire(svm, decoded, wire, 'simulate') as NativeSimulated | FailedTransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      return {
        err: toAgaveTransactionError(result.err()),
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        innerInstructions: readInnerInstructions(meta),
        postAccounts: NO_POST_ACCOUNTS,
        returnData: null,
      };
    }
    const meta = result.meta();
    const ret = meta.returnData();
    const retData = ret.data();
    let post: ReadonlyMap<string, PostAccount> | null = null;
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      innerInstructions: readInnerInstructions(meta),
      postAccounts: () => {
        post ??= new Map(result.postAccounts().map((a) => [bytesToAddress(a.address), postAccountOf(a.account())]));
        return post;
      },
      returnData: retData.length > 0 ? { programId: ret.programId(), data: retData } : null,
    };
  } catch {
    return { err: 'SignatureFailure', logs: [], unitsConsumed: 0n, innerInstructions: [], postAccounts: NO_POST_ACCOUNTS, returnData: null };
  } finally {
    svm.withSigverify(true);
  }
}

function postAccountOf(account: Account): PostAccount {
  return { lamports: account.lamports(), data: account.data(), owner: bytesToAddress(account.owner()), executable: account.executable() };
}
