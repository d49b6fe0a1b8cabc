/**
 * One transaction of block-producer traffic at a time: swaps against the world's pools (a
 * TransferChecked pair user->vault and vault->user, the second signed by the pool authority),
 * Jito tips, plain transfers and a few deliberately failing transfers. Compute-unit prices are
 * drawn log-normally (median 20k, clipped to 1k..5M micro-lamports) like a real fee market.
 */
import type { Instruction } from '@solana/kit';
import type { LocalChain } from '../chain/local-chain.ts';
import type { Prng, WorldSigner } from '../signing/world-keys.ts';
import { cpSwapExactIn } from '../market/cp-quote.ts';
import { vaultBalance, type WorldPool } from '../world/world-pools.ts';
import type { WorldTrader } from '../world/world-traders.ts';
import { buildSignedWire, computeBudgetIxs, transferCheckedIx, transferSolIx } from '../signing/world-transactions.ts';

/** Compute-unit price bounds and median, micro-lamports per CU. */
export const CU_PRICE_MIN_MICRO_LAMPORTS = 1_000;
export const CU_PRICE_MAX_MICRO_LAMPORTS = 5_000_000;
const CU_PRICE_MEDIAN_MICRO_LAMPORTS = 20_000;
const CU_PRICE_LOG_SIGMA = 1.6;
/** Tip bounds and median in lamports. */
export const TIP_MIN_LAMPORTS = 1_000;
export const TIP_MAX_LAMPORTS = 2_000_000;
const TIP_MEDIAN_LAMPORTS = 20_000;
const TIP_LOG_SIGMA = 1.2;

/** Kinds of generated transactions. */
export type TrafficKind = 'swap' | 'tip' | 'transfer' | 'failing' | 'launch';

/** Ground truth of one generated transaction. */
export interface ProducedTransaction {
  readonly kind: TrafficKind;
  /** Null when the chain rejected the wire before landing (e.g. a duplicate). */
  readonly signature: string | null;
  readonly landed: boolean;
  /** Landed with an execution error (the failing kind). */
  readonly failed: boolean;
  /** Set via ComputeBudget SetComputeUnitPrice, micro-lamports per CU; null when not set. */
  readonly computeUnitPrice: bigint | null;
  readonly computeUnitLimit: number | null;
  /** Lamports paid to a Jito tip account, 0 when none. */
  readonly tipLamports: bigint;
  readonly tipAccount: string | null;
  /** Pool label for swaps and for a launch that created its pool. */
  readonly pool: string | null;
}

/** What traffic generation needs. */
export interface TrafficContext {
  readonly chain: LocalChain;
  readonly prng: Prng;
  readonly pools: readonly WorldPool[];
  readonly traders: readonly WorldTrader[];
  readonly tipAccounts: readonly string[];
}

function gaussian(prng: Prng): number {
  const u = Math.max(prng.next(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * prng.next());
}

function logNormal(prng: Prng, median: number, sigma: number, min: number, max: number): bigint {
  return BigInt(Math.round(Math.min(max, Math.max(min, median * Math.exp(sigma * gaussian(prng))))));
}

/** A compute-unit price from the fee-market spread. */
export function drawCuPrice(prng: Prng): bigint {
  return logNormal(prng, CU_PRICE_MEDIAN_MICRO_LAMPORTS, CU_PRICE_LOG_SIGMA, CU_PRICE_MIN_MICRO_LAMPORTS, CU_PRICE_MAX_MICRO_LAMPORTS);
}

/** A Jito tip from the tip spread. */
export function drawTip(prng: Prng): bigint {
  return logNormal(prng, TIP_MEDIAN_LAMPORTS, TIP_LOG_SIGMA, TIP_MIN_LAMPORTS, TIP_MAX_LAMPORTS);
}

interface Draft {
  readonly kind: TrafficKind;
  readonly payer: WorldSigner;
  readonly signers: readonly WorldSigner[];
  readonly ixs: readonly Instruction[];
  readonly cu: { readonly limit: number; readonly price: bigint } | null;
  readonly tip: { readonly account: string; readonly lamports: bigint } | null;
  readonly pool: string | null;
}

function tokenBalance(ctx: TrafficContext, account: string): bigint {
  return vaultBalance(ctx.chain, account);
}

function swapDraft(ctx: TrafficContext, trader: WorldTrader): Draft | null {
  const pool = ctx.prng.pick(ctx.pools);
  const aToB = ctx.prng.next() < 0.5;
  const [mintIn, mintOut, vaultIn, vaultOut, decIn, decOut, progIn, progOut] = aToB
    ? [pool.mintA, pool.mintB, pool.vaultA, pool.vaultB, pool.decimalsA, pool.decimalsB, pool.programIdA, pool.programIdB]
    : [pool.mintB, pool.mintA, pool.vaultB, pool.vaultA, pool.decimalsB, pool.decimalsA, pool.programIdB, pool.programIdA];
  const userIn = trader.tokenAccounts.get(mintIn);
  const userOut = trader.tokenAccounts.get(mintOut);
  if (userIn === undefined || userOut === undefined) return null;
  const reserveIn = tokenBalance(ctx, vaultIn);
  const fraction = ctx.prng.logUniform(1e-5, 3e-3);
  let amountIn = BigInt(Math.max(1, Math.floor(Number(reserveIn) * fraction)));
  const balance = tokenBalance(ctx, userIn);
  if (amountIn > balance) amountIn = balance / 10n;
  // The same curve the Jupiter stand-in quotes, so quotes match what swaps pay.
  const amountOut = cpSwapExactIn(reserveIn, tokenBalance(ctx, vaultOut), amountIn, pool.feeBps).amountOut;
  if (amountIn <= 0n || amountOut <= 0n) return null;
  const cu = { limit: ctx.prng.int(40_000, 200_000), price: drawCuPrice(ctx.prng) };
  const tip = ctx.prng.next() < 0.3 ? { account: ctx.prng.pick(ctx.tipAccounts), lamports: drawTip(ctx.prng) } : null;
  const ixs: Instruction[] = [
    ...computeBudgetIxs(cu.limit, cu.price),
    transferCheckedIx({
      source: userIn,
      mint: mintIn,
      destination: vaultIn,
      authority: trader.signer.address,
      amount: amountIn,
      decimals: decIn,
      programId: progIn,
    }),
    transferCheckedIx({
      source: vaultOut,
      mint: mintOut,
      destination: userOut,
      authority: pool.authority.address,
      amount: amountOut,
      decimals: decOut,
      programId: progOut,
    }),
    ...(tip ? [transferSolIx(trader.signer.address, tip.account, tip.lamports)] : []),
  ];
  return { kind: 'swap', payer: trader.signer, signers: [pool.authority], ixs, cu, tip, pool: pool.label };
}

function tipDraft(ctx: TrafficContext, trader: WorldTrader): Draft {
  const tip = { account: ctx.prng.pick(ctx.tipAccounts), lamports: drawTip(ctx.prng) };
  const cu = ctx.prng.next() < 0.5 ? { limit: ctx.prng.int(1_000, 5_000), price: drawCuPrice(ctx.prng) } : null;
  const ixs = [...(cu ? computeBudgetIxs(cu.limit, cu.price) : []), transferSolIx(trader.signer.address, tip.account, tip.lamports)];
  return { kind: 'tip', payer: trader.signer, signers: [], ixs, cu, tip, pool: null };
}

function transferDraft(ctx: TrafficContext, trader: WorldTrader, failing: boolean): Draft {
  const others = ctx.traders.filter((t) => t !== trader);
  const peer = ctx.prng.pick(others.length > 0 ? others : ctx.traders);
  const cu = ctx.prng.next() < 0.7 ? { limit: ctx.prng.int(2_000, 20_000), price: drawCuPrice(ctx.prng) } : null;
  const budget = cu ? computeBudgetIxs(cu.limit, cu.price) : [];
  const tokenMint = failing || ctx.prng.next() < 0.4 ? ctx.pools[0]?.mintB : undefined;
  const from = tokenMint ? trader.tokenAccounts.get(tokenMint) : undefined;
  const to = tokenMint ? peer.tokenAccounts.get(tokenMint) : undefined;
  const pool = ctx.pools[0];
  if (tokenMint && from && to && pool) {
    const balance = tokenBalance(ctx, from);
    // A failing transfer asks for more than the balance: the token program answers InsufficientFunds.
    const amount = failing ? balance + 1n : BigInt(ctx.prng.int(1, 1_000)) * 10n ** BigInt(pool.decimalsB);
    const ix = transferCheckedIx({
      source: from,
      mint: tokenMint,
      destination: to,
      authority: trader.signer.address,
      amount,
      decimals: pool.decimalsB,
      programId: pool.programIdB,
    });
    return { kind: failing ? 'failing' : 'transfer', payer: trader.signer, signers: [], ixs: [...budget, ix], cu, tip: null, pool: null };
  }
  const ix = transferSolIx(trader.signer.address, peer.signer.address, BigInt(ctx.prng.int(1_000_000, 100_000_000)));
  return { kind: 'transfer', payer: trader.signer, signers: [], ixs: [...budget, ix], cu, tip: null, pool: null };
}

/** Generates, signs and submits one transaction; returns its ground truth. */
export function produceTransaction(ctx: TrafficContext, failing: boolean): ProducedTransaction | null {
  const trader = ctx.prng.pick(ctx.traders);
  const roll = ctx.prng.next();
  const draft = failing
    ? transferDraft(ctx, trader, true)
    : roll < 0.6
      ? swapDraft(ctx, trader)
      : roll < 0.8
        ? tipDraft(ctx, trader)
        : transferDraft(ctx, trader, false);
  if (draft === null) return null;
  const signed = buildSignedWire(draft.payer, draft.ixs, ctx.chain.latestBlockhash('processed').blockhash, draft.signers);
  const result = ctx.chain.sendTransaction(signed.wire);
  return {
    kind: draft.kind,
    signature: result.signature,
    landed: result.ok,
    failed: result.ok && result.tx.err !== null,
    computeUnitPrice: draft.cu?.price ?? null,
    computeUnitLimit: draft.cu?.limit ?? null,
    tipLamports: draft.tip?.lamports ?? 0n,
    tipAccount: draft.tip?.account ?? null,
    pool: draft.pool,
  };
}
