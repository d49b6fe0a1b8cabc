/**
 * The forensics/execution group: wallet-scan, tx-inspect, simulate and the pretrade bundle (which
 * borrows token-intel from the token group and fee bands from the timing group).
 *
 * Caches (single-flight, so concurrent identical requests share one upstream read):
 * - wallet-scan by address, WALLET_CACHE_TTL_MS (activity changes every slot; a short TTL only
 *   absorbs bursts);
 * - tx-inspect by signature, TX_CACHE_TTL_MS: getTransaction answers only confirmed or finalized
 *   transactions, whose status meta does not change; an unknown signature is not cached (it may land).
 * - simulate is never cached (its answer depends on the state at the moment of the call).
 */
import type { RpcClient } from '../../chain/solana/rpc-client.ts';
import { createForensicsRpcMethods, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, type ForensicsRpcMethods } from '../../chain/solana/rpc-forensics-methods.ts';
import { parseTokenAccount } from '../../chain/tokens/token-extensions.ts';
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import { ServiceError } from '../../errors.ts';
import { type FeeBands, type HandlerDeps, handlerMap, type PaidHandler } from '../handler-group.ts';
import { pretrade, type LargestHolder, type PretradeSources } from './pretrade.ts';
import { decodeSimulationInput, refusedAsMalformed, simulationAnswer, simulationFailure } from './simulate-tx.ts';
import { txInspectAnswer } from './tx-summary.ts';
import { WALLET_SCAN_SIGNATURE_LIMIT, walletProfile, type WalletProfile } from './wallet-profile.ts';

/** How long a wallet profile is served from cache. */
export const WALLET_CACHE_TTL_MS = 10_000;
/** How long a decoded landed transaction is served from cache. */
export const TX_CACHE_TTL_MS = 600_000;
const WALLET_CACHE_MAX = 1_000;
const TX_CACHE_MAX = 5_000;

/** Analyses of other groups that pretrade bundles. */
export interface ForensicsPeers {
  readonly feeBands: (signal: AbortSignal) => Promise<FeeBands>;
  readonly tokenIntel: (mint: string, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

/** The forensics group plus the wallet profile other code may reuse. */
export type ForensicsGroup = ReturnType<typeof createForensicsGroup>;

/** Reads one wallet from the chain (four reads in parallel) and profiles it. */
async function scanWallet(rpc: ForensicsRpcMethods, address: string): Promise<WalletProfile> {
  const [meta, signatures, spl, t22] = await Promise.all([
    rpc.getAccountMeta(address),
    rpc.getSignaturesForAddress(address, WALLET_SCAN_SIGNATURE_LIMIT),
    rpc.getTokenAccountsByOwner(address, TOKEN_PROGRAM_ID),
    rpc.getTokenAccountsByOwner(address, TOKEN_2022_PROGRAM_ID),
  ]);
  return walletProfile({
    address,
    lamports: meta.lamports,
    accountOwner: meta.owner,
    executable: meta.executable,
    signatures,
    tokenAccounts: [...spl, ...t22],
    windowLimit: WALLET_SCAN_SIGNATURE_LIMIT,
    nowUnix: Math.floor(Date.now() / 1000),
  });
}

/** The largest token account of a mint and the owner read from that account. */
async function largestHolder(rpc: ForensicsRpcMethods, client: RpcClient, mint: string, signal: AbortSignal): Promise<LargestHolder | null> {
  const top = await rpc.getLargestTokenAccount(mint, signal);
  if (top === null) return null;
  const account = await client.getAccountInfo(top.address, signal);
  const parsed = account === null ? null : parseTokenAccount(account.data);
  if (parsed === null || !parsed.ok) throw new ServiceError('upstream_unavailable', 'the largest token account could not be read');
  return { account: top.address, owner: parsed.state.owner, amount: top.amount };
}

/** `/v1/tx-inspect`: a confirmed transaction is immutable, so its answer is cached by signature. */
function txInspectHandler(rpc: ForensicsRpcMethods): PaidHandler<ReturnType<typeof txInspectAnswer>> {
  const txs = createSingleFlightCache<ReturnType<typeof txInspectAnswer>>({ max: TX_CACHE_MAX, ttlMs: TX_CACHE_TTL_MS });
  return async (query, signal) => {
    const sig = String(query.sig);
    const cached = await txs.get(
      sig,
      async () => {
        const tx = await rpc.getTransaction(sig);
        if (tx === null) throw new ServiceError('not_found', 'no confirmed transaction with this signature', { param: 'sig' });
        return txInspectAnswer(tx);
      },
      signal,
    );
    return cached.value;
  };
}

/** `/v1/simulate`: decoded here first (400 before any RPC call), never cached. */
function simulateHandler(rpc: ForensicsRpcMethods): PaidHandler<ReturnType<typeof simulationAnswer>> {
  return async (query, signal) => {
    const tx = decodeSimulationInput(String(query.tx));
    const outcome = await rpc.simulateTransaction(String(query.tx), signal);
    if (!outcome.ok) throw simulationFailure(outcome);
    const malformed = refusedAsMalformed(outcome);
    if (malformed) throw malformed;
    return simulationAnswer(tx, outcome);
  };
}

/** Builds the forensics group. */
export function createForensicsGroup(deps: HandlerDeps, peers: ForensicsPeers) {
  const rpc = createForensicsRpcMethods(deps.rpcTransport);
  const wallets = createSingleFlightCache<WalletProfile>({ max: WALLET_CACHE_MAX, ttlMs: WALLET_CACHE_TTL_MS });
  const profileOf = async (address: string, signal: AbortSignal) => (await wallets.get(address, () => scanWallet(rpc, address), signal)).value;
  const sources: PretradeSources = {
    mintAccount: (mint, signal) => deps.rpc.getAccountInfo(mint, signal),
    tokenIntel: peers.tokenIntel,
    feeBands: peers.feeBands,
    largestHolder: (mint, signal) => largestHolder(rpc, deps.rpc, mint, signal),
    walletProfile: profileOf,
  };
  return {
    handlers: handlerMap({
      '/v1/wallet-scan': async (query, signal) => profileOf(String(query.address), signal),
      '/v1/tx-inspect': txInspectHandler(rpc),
      '/v1/simulate': simulateHandler(rpc),
      '/v1/pretrade': async (query, signal) => pretrade(sources, String(query.mint), signal),
    }),
    walletProfile: profileOf,
  };
}
