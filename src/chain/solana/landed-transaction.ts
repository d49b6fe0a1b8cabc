/**
 * A landed transaction as the forensics handlers read it: the `json` encoding of getTransaction
 * (with `maxSupportedTransactionVersion: 0`) turned into plain data. Keys come in the order the
 * balance arrays use (static, then loaded writable, then loaded readonly) and inner instructions
 * keep the outer instruction they belong to.
 */
import { jsonSafe, numberOrNull } from './rpc-client.ts';

/** A token balance row of a transaction's status meta. */
export interface TxTokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string | null;
  readonly programId: string | null;
  readonly amount: string;
  readonly decimals: number;
}

/** A compiled instruction (outer or inner). */
export interface TxInstruction {
  readonly programIdIndex: number;
  /** Outer instruction index the inner one belongs to; null for an outer instruction. */
  readonly outerIndex: number | null;
}

/** A landed transaction with its status meta, `json` encoding. */
export interface LandedTransaction {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number | null;
  readonly version: 'legacy' | 0;
  /** Static keys, then loaded writable, then loaded readonly (the order of the balance arrays). */
  readonly accountKeys: readonly string[];
  readonly signerCount: number;
  readonly err: unknown;
  readonly feeLamports: bigint;
  /** null when the node did not record it. */
  readonly computeUnitsConsumed: number | null;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TxTokenBalance[];
  readonly postTokenBalances: readonly TxTokenBalance[];
  readonly instructions: readonly TxInstruction[];
  readonly logs: readonly string[] | null;
}

interface RawTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number };
}
interface RawCompiled {
  programIdIndex: number;
}
/** The `json` encoding of a getTransaction answer, as far as it is read here (u64 fields as kit's bigint). */
export interface RawTx {
  slot: bigint;
  blockTime: bigint | null;
  version?: 'legacy' | 0;
  transaction: { signatures: string[]; message: { accountKeys: string[]; header: { numRequiredSignatures: number }; instructions: RawCompiled[] } };
  meta: {
    err: unknown;
    fee: bigint;
    computeUnitsConsumed?: bigint;
    preBalances: bigint[];
    postBalances: bigint[];
    preTokenBalances?: RawTokenBalance[];
    postTokenBalances?: RawTokenBalance[];
    logMessages?: string[] | null;
    innerInstructions?: { index: number; instructions: RawCompiled[] }[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] };
  } | null;
}

function tokenRows(rows: readonly RawTokenBalance[] | undefined): TxTokenBalance[] {
  return (rows ?? []).map((r) => ({
    accountIndex: r.accountIndex,
    mint: r.mint,
    owner: r.owner ?? null,
    programId: r.programId ?? null,
    amount: r.uiTokenAmount.amount,
    decimals: r.uiTokenAmount.decimals,
  }));
}

/** Plain data of a `json`-encoded getTransaction answer. */
export function landedTransactionOf(signature: string, raw: RawTx): LandedTransaction {
  const meta = raw.meta;
  const message = raw.transaction.message;
  const loaded = meta?.loadedAddresses ?? { writable: [], readonly: [] };
  const outer: TxInstruction[] = message.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, outerIndex: null }));
  const inner: TxInstruction[] = (meta?.innerInstructions ?? []).flatMap((g) =>
    g.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, outerIndex: g.index })),
  );
  return {
    signature,
    slot: Number(raw.slot),
    blockTime: numberOrNull(raw.blockTime),
    version: raw.version ?? 'legacy',
    accountKeys: [...message.accountKeys, ...loaded.writable, ...loaded.readonly],
    signerCount: message.header.numRequiredSignatures,
    err: meta?.err === null || meta?.err === undefined ? null : jsonSafe(meta.err),
    feeLamports: BigInt(meta?.fee ?? 0),
    computeUnitsConsumed: numberOrNull(meta?.computeUnitsConsumed),
    preBalances: (meta?.preBalances ?? []).map((b) => BigInt(b)),
    postBalances: (meta?.postBalances ?? []).map((b) => BigInt(b)),
    preTokenBalances: tokenRows(meta?.preTokenBalances),
    postTokenBalances: tokenRows(meta?.postTokenBalances),
    instructions: [...outer, ...inner],
    logs: meta?.logMessages ?? null,
  };
}
