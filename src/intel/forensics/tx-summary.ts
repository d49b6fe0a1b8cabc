/**
 * The `/v1/tx-inspect` answer from a landed transaction's status meta: fee, compute units,
 * programs invoked (outer and inner, well-known ids named), SOL balance changes from
 * pre/postBalances and token balance changes from pre/postTokenBalances. On-chain effects only:
 * nothing here interprets intent.
 */
import type { LandedTransaction, TxTokenBalance } from '../../chain/solana/landed-transaction.ts';
import { JITO_TIP_ACCOUNTS, nameProgram } from './program-names.ts';
import { LAMPORTS_PER_SOL } from './wallet-profile.ts';

/** One account's SOL change (accounts whose balance did not move are left out). */
export interface SolBalanceChange {
  readonly account: string;
  readonly preLamports: string;
  readonly postLamports: string;
  readonly changeLamports: string;
  readonly changeSol: number;
  readonly signer: boolean;
  readonly feePayer: boolean;
  readonly jitoTipAccount: boolean;
}

/** One token account's change (unchanged accounts are left out). */
export interface TokenBalanceChange {
  readonly account: string;
  readonly mint: string;
  readonly owner: string | 'unknown';
  readonly programId: string | 'unknown';
  readonly decimals: number;
  readonly preAmount: string;
  readonly postAmount: string;
  readonly change: string;
  readonly uiChange: number;
}

const lamportsToSol = (lamports: bigint): number => Number(lamports) / LAMPORTS_PER_SOL;

/** SOL changes per account, from the two balance arrays (aligned with the account keys). */
export function solBalanceChanges(tx: LandedTransaction): SolBalanceChange[] {
  const out: SolBalanceChange[] = [];
  tx.accountKeys.forEach((account, i) => {
    const pre = tx.preBalances[i];
    const post = tx.postBalances[i];
    if (pre === undefined || post === undefined || pre === post) return;
    out.push({
      account,
      preLamports: pre.toString(),
      postLamports: post.toString(),
      changeLamports: (post - pre).toString(),
      changeSol: lamportsToSol(post - pre),
      signer: i < tx.signerCount,
      feePayer: i === 0,
      jitoTipAccount: JITO_TIP_ACCOUNTS.has(account),
    });
  });
  return out;
}

function uiAmount(amount: bigint, decimals: number): number {
  return Number(amount) / 10 ** decimals;
}

/**
 * Token changes per account index: a row only in `pre` is an account emptied or closed, a row
 * only in `post` an account created or first funded; both count the missing side as zero.
 */
export function tokenBalanceChanges(accountKeys: readonly string[], pre: readonly TxTokenBalance[], post: readonly TxTokenBalance[]): TokenBalanceChange[] {
  const byIndex = new Map<number, { pre?: TxTokenBalance; post?: TxTokenBalance }>();
  for (const row of pre) byIndex.set(row.accountIndex, { ...byIndex.get(row.accountIndex), pre: row });
  for (const row of post) byIndex.set(row.accountIndex, { ...byIndex.get(row.accountIndex), post: row });
  const out: TokenBalanceChange[] = [];
  for (const [index, { pre: a, post: b }] of [...byIndex].sort((x, y) => x[0] - y[0])) {
    const ref = (b ?? a) as TxTokenBalance;
    const before = BigInt(a?.amount ?? '0');
    const after = BigInt(b?.amount ?? '0');
    if (before === after) continue;
    out.push({
      account: accountKeys[index] ?? 'unknown',
      mint: ref.mint,
      owner: ref.owner ?? 'unknown',
      programId: ref.programId ?? 'unknown',
      decimals: ref.decimals,
      preAmount: before.toString(),
      postAmount: after.toString(),
      change: (after - before).toString(),
      uiChange: uiAmount(after - before, ref.decimals),
    });
  }
  return out;
}

/** Programs in first-invocation order with their outer and inner instruction counts. */
export function programsInvoked(
  tx: LandedTransaction,
): { name: string; programId: string; known: boolean; outerInstructions: number; innerInstructions: number }[] {
  const rows = new Map<string, { outer: number; inner: number }>();
  for (const ix of tx.instructions) {
    const id = tx.accountKeys[ix.programIdIndex] ?? 'unknown';
    const row = rows.get(id) ?? { outer: 0, inner: 0 };
    if (ix.outerIndex === null) row.outer += 1;
    else row.inner += 1;
    rows.set(id, row);
  }
  return [...rows].map(([id, n]) => ({ ...nameProgram(id), outerInstructions: n.outer, innerInstructions: n.inner }));
}

/** The whole tx-inspect answer. */
export function txInspectAnswer(tx: LandedTransaction) {
  const sol = solBalanceChanges(tx);
  const tips = sol.filter((c) => c.jitoTipAccount && BigInt(c.changeLamports) > 0n);
  const tipLamports = tips.reduce((sum, c) => sum + BigInt(c.changeLamports), 0n);
  return {
    signature: tx.signature,
    success: tx.err === null,
    err: tx.err,
    slot: tx.slot,
    blockTime: tx.blockTime ?? ('unknown' as const),
    blockTimeIso: tx.blockTime === null ? 'unknown' : new Date(tx.blockTime * 1000).toISOString(),
    version: tx.version,
    feePayer: tx.accountKeys[0] ?? 'unknown',
    signers: tx.accountKeys.slice(0, tx.signerCount),
    feeLamports: tx.feeLamports.toString(),
    feeSol: lamportsToSol(tx.feeLamports),
    computeUnitsConsumed: tx.computeUnitsConsumed ?? ('unknown' as const),
    programsInvoked: programsInvoked(tx),
    solBalanceChanges: sol,
    tokenBalanceChanges: tokenBalanceChanges(tx.accountKeys, tx.preTokenBalances, tx.postTokenBalances),
    jitoTip: { lamports: tipLamports.toString(), accounts: tips.map((c) => c.account) },
    logMessageCount: tx.logs === null ? 'unknown' : tx.logs.length,
    note: 'On-chain effects only, from the transaction status meta (confirmed commitment). Program names come from a fixed table of well-known ids; others are `unknown`. Balance changes include the fee.',
  };
}
