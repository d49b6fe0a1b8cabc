/**
 * `/v1/pretrade`: one sweep before a trade. The mint account is read first (unknown mint: 404;
 * RPC down: 502); then three parts, each reported on its own: the token-intel bundle (token
 * group), the largest holder's wallet profile (token-intel's largest holder not labelled
 * burn/system, or the largest token account when token-intel failed -> its owner -> wallet-scan)
 * and the priority-fee bands (timing group, fetched in parallel). A failed part is an explicit
 * `{ error, message }` field and the answer is still 200; when all three fail the call answers
 * 502 (nothing is charged). The checklist is computed from the mint account and whatever parts
 * answered; an input that is missing makes its check `unknown`.
 */
import type { AccountInfo } from '../../chain/solana/rpc-client.ts';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../chain/solana/rpc-forensics-methods.ts';
import { parseMintAccount } from '../../chain/tokens/token-extensions.ts';
import { ServiceError, type ErrorBody } from '../../errors.ts';
import type { FeeBands } from '../handler-group.ts';
import { PRETRADE_TOP10_MAX_PCT, pretradeChecklist } from './pretrade-checklist.ts';

export const PRETRADE_DISCLAIMER = 'Factual pre-trade checks with stated thresholds; not financial advice and not a prediction of price or outcome.';

/** The largest token account of a mint and its owner. */
export interface LargestHolder {
  readonly account: string;
  readonly owner: string;
  readonly amount: string;
}

export interface PretradeSources {
  readonly mintAccount: (mint: string, signal: AbortSignal) => Promise<AccountInfo | null>;
  readonly tokenIntel: (mint: string, signal: AbortSignal) => Promise<Record<string, unknown>>;
  readonly feeBands: (signal: AbortSignal) => Promise<FeeBands>;
  readonly largestHolder: (mint: string, signal: AbortSignal) => Promise<LargestHolder | null>;
  readonly walletProfile: (address: string, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

type Part<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

/** token-intel's digest: the answer's `digest` field (it names the risk band). */
type Digest = Readonly<Record<string, unknown>> & { readonly riskBand: string };

/** Runs one part; its fault becomes an explicit error field (a 404 of the mint is re-thrown). */
async function part<T>(run: () => Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'not_found') throw err;
    if (err instanceof ServiceError) return { ok: false, error: err.body };
    return { ok: false, error: { error: 'internal_error', message: 'this part failed unexpectedly' } };
  }
}

async function readMint(sources: PretradeSources, mint: string, signal: AbortSignal) {
  const account = await sources.mintAccount(mint, signal);
  if (account === null) throw new ServiceError('not_found', 'no account at this mint address', { param: 'mint' });
  if (account.owner !== TOKEN_PROGRAM_ID && account.owner !== TOKEN_2022_PROGRAM_ID)
    throw new ServiceError('not_found', 'the account at this address is not a token mint', { param: 'mint' });
  const parsed = parseMintAccount(account.data);
  if (!parsed.ok) throw new ServiceError('not_found', 'the account at this address is not a token mint', { param: 'mint' });
  return { programId: account.owner, state: parsed.state, extensions: parsed.extensions };
}

/**
 * The holder to profile: token-intel's largest holder whose owner is not labelled burn/system
 * (an owner that is a wallet candidate), else the largest token account read from the RPC.
 */
function holderFromIntel(intel: Part<Record<string, unknown>>): (LargestHolder & { label: string; rank: number }) | null {
  if (!intel.ok) return null;
  const list = (intel.value.holders as { classification?: unknown } | undefined)?.classification;
  if (!Array.isArray(list)) return null;
  for (const row of list as Record<string, unknown>[]) {
    if (typeof row.owner === 'string' && typeof row.address === 'string' && row.label === 'unresolved') {
      return { account: row.address, owner: row.owner, amount: 'unknown', label: 'unresolved', rank: Number(row.rank ?? 0) };
    }
  }
  return null;
}

async function holderProfile(sources: PretradeSources, intel: Part<Record<string, unknown>>, mint: string, signal: AbortSignal) {
  const fromIntel = holderFromIntel(intel);
  const holder = fromIntel ?? (await sources.largestHolder(mint, signal));
  if (holder === null) throw new ServiceError('upstream_unavailable', 'the mint has no token accounts to profile');
  const profile = await sources.walletProfile(holder.owner, signal);
  const band = (profile.profile as { band: string }).band;
  const { disclaimer: _d, ...rest } = profile;
  return {
    account: holder.account,
    owner: holder.owner,
    band,
    source: fromIntel
      ? `token-intel holder classification (rank ${fromIntel.rank}, largest not labelled burn/system)`
      : 'largest token account (getTokenLargestAccounts)',
    ...(fromIntel ? {} : { amount: holder.amount }),
    profile: rest,
  };
}

function digestOf(intel: Record<string, unknown>): Digest | ErrorBody {
  const digest = intel.digest;
  if (typeof digest === 'object' && digest !== null && typeof (digest as { riskBand?: unknown }).riskBand === 'string') return digest as Digest;
  return { error: 'upstream_unavailable', message: 'token-intel answered without a digest' };
}

/** The pretrade answer. */
export async function pretrade(sources: PretradeSources, mint: string, signal: AbortSignal) {
  const base = await readMint(sources, mint, signal);
  const feesPending = part(() => sources.feeBands(signal));
  feesPending.catch(() => undefined); // awaited below; never left unhandled if token-intel answers 404 first
  const intel = await part(() => sources.tokenIntel(mint, signal));
  const [holder, fees] = await Promise.all([part(() => holderProfile(sources, intel, mint, signal)), feesPending]);
  if (!intel.ok && !holder.ok && !fees.ok) {
    throw new ServiceError('upstream_unavailable', 'every pretrade part failed (token-intel, largest holder, priority fee)', {
      parts: { tokenIntel: intel.error, largestHolder: holder.error, priorityFee: fees.error },
    });
  }
  const digest = intel.ok ? digestOf(intel.value) : intel.error;
  const top10 = typeof digest.top10ConcentrationPct === 'number' ? digest.top10ConcentrationPct : null;
  const largestHolder = holder.ok ? holder.value : holder.error;
  const checklist = pretradeChecklist({
    mint: base.state,
    extensions: base.extensions,
    top10Pct: top10,
    largestHolderBand: holder.ok ? String(holder.value.band) : null,
  });
  return {
    mint,
    tokenProgram: base.programId === TOKEN_2022_PROGRAM_ID ? 'token-2022' : 'spl-token',
    digest,
    tokenIntel: intel.ok ? intel.value : intel.error,
    largestHolder,
    priorityFee: fees.ok ? fees.value : fees.error,
    checklist,
    thresholds: { top10MaxPct: PRETRADE_TOP10_MAX_PCT },
    summary: `${checklist.filter((c) => c.observed === true).length} of ${checklist.length} checks observed true, ${checklist.filter((c) => c.observed === 'unknown').length} unknown; top-10 threshold ${PRETRADE_TOP10_MAX_PCT}% of supply; a failed part is an error field.`,
    disclaimer: PRETRADE_DISCLAIMER,
  };
}
