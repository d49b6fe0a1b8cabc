/**
 * One mint's analysis from its snapshot: flags, contract score, holder distribution (computed in
 * the worker pool), index, bands. Every answer of the token group is a view of this object.
 */
import { ServiceError } from '../../errors.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import { contractScore, mintFlags, type RiskFlag } from './extension-flags.ts';
import type { BucketHoldersInput, HolderDistribution } from './holder-buckets.ts';
import { mintAgeOf, type MintAge } from './mint-age.ts';
import type { ParsedMint, HookProgramStatus } from './mint-analysis.ts';
import { TOKEN_METHODOLOGY_VERSION } from './token-methodology.ts';
import { computeIndex, concentrationScore, riskBandOf, type IndexResult, type RiskBand } from './token-scoring.ts';
import type { TokenSnapshot } from './token-snapshots.ts';

/** The holder part: the distribution, or the explicit error of that sub-analysis. */
export type HoldersResult =
  | { readonly ok: true; readonly slot: number | null; readonly distribution: HolderDistribution; readonly listed: number }
  | { readonly ok: false; readonly error: string; readonly message: string; readonly rpcCode: number };

export interface TokenAnalysis {
  readonly mint: string;
  readonly slot: number;
  readonly methodologyVersion: string;
  readonly parsed: ParsedMint;
  readonly epoch: number | null;
  readonly hook: HookProgramStatus | null;
  readonly flags: readonly RiskFlag[];
  readonly contractScore: number;
  readonly holders: HoldersResult;
  readonly index: IndexResult;
  readonly riskBand: RiskBand;
  readonly age: MintAge;
}

/** The snapshot of a mint that exists, or the 404 the single-mint endpoints answer. */
export function requireMint(s: TokenSnapshot): Extract<TokenSnapshot, { kind: 'mint' }> {
  if (s.kind === 'not_found')
    throw new ServiceError('not_found', `No account exists at ${s.mint}`, { param: 'mint', reason: 'account_not_found', slot: s.slot });
  if (s.kind === 'not_a_mint') {
    throw new ServiceError('not_found', `No token mint exists at ${s.mint}: ${s.detail}`, {
      param: 'mint',
      reason: 'not_a_mint',
      owner: s.owner,
      slot: s.slot,
    });
  }
  return s;
}

/** The pool task the token analysis runs: shares and buckets of the largest accounts. */
export interface TokenPoolTasks {
  bucketHolders(input: BucketHoldersInput): HolderDistribution;
}

async function holdersOf(s: Extract<TokenSnapshot, { kind: 'mint' }>, pool: TaskRunner<TokenPoolTasks>, signal?: AbortSignal): Promise<HoldersResult> {
  if (!s.holders.ok) {
    const message =
      s.holders.error === 'snapshot_unavailable'
        ? `the RPC excludes this mint from its secondary indexes (JSON-RPC ${s.holders.rpcCode}): too many token accounts to snapshot`
        : `getTokenLargestAccounts failed (JSON-RPC ${s.holders.rpcCode})`;
    return { ok: false, error: s.holders.error, message, rpcCode: s.holders.rpcCode };
  }
  const distribution = await pool.runTask(
    'bucketHolders',
    { supply: s.parsed.supply, decimals: s.parsed.decimals, accounts: s.holders.accounts, mint: s.mint },
    signal,
  );
  return { ok: true, slot: s.holders.slot, distribution, listed: s.holders.accounts.length };
}

function contractNote(flags: readonly RiskFlag[], score: number): string {
  const penalised = flags.filter((f) => f.penalty > 0);
  if (penalised.length === 0) return '100: no authority or risky extension observed.';
  return `${score} = 100 - ${penalised.map((f) => `${f.penalty} (${f.code})`).join(' - ')}, floored at 0.`;
}

function concentrationNote(h: HoldersResult): string {
  if (!h.ok) return `unknown: ${h.message}.`;
  const c = h.distribution.top10CirculatingPct;
  if (c === null) return 'unknown: circulating supply is 0.';
  return `round(100 - ${c}) where ${c}% is the top-10 share of circulating supply among the ${h.listed} largest accounts (burn/system-owned balances excluded).`;
}

/** Analyses a snapshot of an existing mint. */
export async function analyseToken(
  s: Extract<TokenSnapshot, { kind: 'mint' }>,
  pool: TaskRunner<TokenPoolTasks>,
  signal?: AbortSignal,
): Promise<TokenAnalysis> {
  const flags = mintFlags(s.parsed, { epoch: s.epoch, hook: s.hook });
  const score = contractScore(flags);
  const holders = await holdersOf(s, pool, signal);
  const circ = holders.ok ? holders.distribution.top10CirculatingPct : null;
  const index = computeIndex({ score, note: contractNote(flags, score) }, { score: concentrationScore(circ), note: concentrationNote(holders) });
  return {
    mint: s.mint,
    slot: s.slot,
    methodologyVersion: TOKEN_METHODOLOGY_VERSION,
    parsed: s.parsed,
    epoch: s.epoch,
    hook: s.hook,
    flags,
    contractScore: score,
    holders,
    index,
    riskBand: riskBandOf(flags, circ),
    age: mintAgeOf(s.history, Math.floor(Date.now() / 1000)),
  };
}
