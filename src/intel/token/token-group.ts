/**
 * The token group: mint and holder analysis behind smri, decision, token-risk, token-intel,
 * batch/token-risk and token-holders. It also lends pretrade the token-intel analysis.
 * Chain data comes from cached, slot-stamped snapshots read in JSON-RPC batches; an RPC fault
 * answers 502 (nothing settled), a missing mint 404, a mint too large to snapshot 502
 * `snapshot_unavailable` on token-holders (an explicit error field elsewhere).
 */
import { isBase58OfLength } from '../../chain/solana/base58.ts';
import { createTokenRpcMethods } from '../../chain/solana/rpc-token-methods.ts';
import { ServiceError } from '../../errors.ts';
import { type HandlerDeps, handlerMap } from '../handler-group.ts';
import { decisionAnswer, decisionQueryOf } from './decision-answer.ts';
import { analyseToken, requireMint, type TokenAnalysis } from './token-analysis.ts';
import { smriAnswer, tokenHoldersAnswer, tokenIntelAnswer, tokenRiskAnswer } from './token-answers.ts';
import { createTokenSnapshots, type TokenSnapshot, type TokenSnapshots } from './token-snapshots.ts';

/** The token handlers plus the token-intel analysis pretrade bundles. */
export type TokenGroup = ReturnType<typeof createTokenGroup>;

/** Mints per batch call (docs/contract.md#limits). */
export const BATCH_MAX_MINTS = 10;

function mintOf(query: Readonly<Record<string, unknown>>): string {
  return String(query.mint);
}

/** One batch element: the risk, or the explicit error of that mint. */
function batchElement(mint: string, s: TokenSnapshot | null, a: TokenAnalysis | null) {
  if (s === null) return { mint, error: 'invalid_mint', message: 'not a base58 address of 32 bytes' };
  if (s.kind === 'not_found') return { mint, error: 'not_found', message: `no account exists at this address (slot ${s.slot})` };
  if (s.kind === 'not_a_mint') return { mint, error: 'not_a_mint', message: s.detail };
  const { mint: _m, ...risk } = tokenRiskAnswer(a!);
  return { mint, risk };
}

/** Builds the token group over the RPC transport and the pool. */
export function createTokenGroup(deps: HandlerDeps, snapshots: TokenSnapshots = createTokenSnapshots(createTokenRpcMethods(deps.rpcTransport))) {
  async function analyse(mint: string, signal: AbortSignal): Promise<TokenAnalysis> {
    const [s] = await snapshots.getMany([mint], signal);
    return analyseToken(requireMint(s!), deps.pool, signal);
  }

  async function batch(query: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const sent = query.mints as readonly string[];
    // Validation allows at most BATCH_MAX_MINTS distinct mints; the slice only guards that contract.
    const requested = [...new Set(sent)].slice(0, BATCH_MAX_MINTS);
    const valid = requested.filter((m) => isBase58OfLength(m, 32));
    const snaps = new Map((await snapshots.getMany(valid, signal)).map((s) => [s.mint, s]));
    const results: ReturnType<typeof batchElement>[] = [];
    // Sequential: each pool task is sub-millisecond, and one abort listener at a time stays bounded.
    for (const mint of requested) {
      const s = snaps.get(mint) ?? null;
      const a = s?.kind === 'mint' ? await analyseToken(s, deps.pool, signal) : null;
      results.push(batchElement(mint, s, a));
    }
    return {
      requested: sent.length,
      count: results.length,
      errors: results.filter((r) => 'error' in r).length,
      results,
      note: 'duplicates are removed before evaluation; each mint is evaluated on its own',
    };
  }

  return {
    handlers: handlerMap({
      '/v1/token-risk': async (q, signal) => tokenRiskAnswer(await analyse(mintOf(q), signal)),
      '/v1/smri': async (q, signal) => smriAnswer(await analyse(mintOf(q), signal)),
      '/v1/decision': async (q, signal) => decisionAnswer(await analyse(mintOf(q), signal), decisionQueryOf(q)),
      '/v1/token-intel': async (q, signal) => tokenIntelAnswer(await analyse(mintOf(q), signal)),
      '/v1/batch/token-risk': batch,
      '/v1/token-holders': async (q, signal) => {
        const a = await analyse(mintOf(q), signal);
        if (!a.holders.ok) {
          const code = a.holders.error === 'snapshot_unavailable' ? 'snapshot_unavailable' : 'upstream_unavailable';
          throw new ServiceError(code, `Holder snapshot of ${a.mint} is not available: ${a.holders.message}`, {
            param: 'mint',
            rpcCode: a.holders.rpcCode,
            slot: a.slot,
          });
        }
        return tokenHoldersAnswer(a as TokenAnalysis & { holders: { ok: true } });
      },
    }),
    async tokenIntel(mint: string, signal: AbortSignal) {
      return tokenIntelAnswer(await analyse(mint, signal));
    },
  };
}
