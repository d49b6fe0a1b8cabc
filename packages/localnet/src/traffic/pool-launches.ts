/**
 * New pools created while the localnet runs, as a token launch makes one: every `everySlots`
 * produced slots a trader sends one signed transaction that creates a fresh mint, creates the
 * pool's two vaults (token accounts owned by a new pool authority), mints the whole supply into
 * the base vault and deposits quote liquidity (SOL or USDC) from its own account. Only a launch
 * that landed without an error becomes a pool, so the market stand-ins list exactly what the
 * chain holds, and Geyser carries the transaction like any other. Everything is drawn from the
 * seed: launch `n` has the keys `launch/<n>/…` and its sizes come from a PRNG of its own, so
 * the swaps and tips of the block traffic stay what they were.
 */
import type { LocalChain } from '../chain/local-chain.ts';
import { WSOL_MINT, USDC_MINT } from '../market/market-prices.ts';
import { createPrng, createWorldKeys, type WorldSigner } from '../signing/world-keys.ts';
import {
  buildSignedWire,
  computeBudgetIxs,
  createAccountIx,
  initializeMintIx,
  initializeTokenAccountIx,
  mintToIx,
  transferCheckedIx,
} from '../signing/world-transactions.ts';
import { TOKEN_PROGRAM_ID } from '../world/world-ledger.ts';
import { vaultBalance, type WorldPool } from '../world/world-pools.ts';
import type { WorldTrader } from '../world/world-traders.ts';
import { drawCuPrice, type ProducedTransaction } from './block-traffic.ts';

/** One launch a minute at 400 ms slots: a modest rate beside mainnet's, enough to watch a feed. */
export const DEFAULT_LAUNCH_EVERY_SLOTS = 150;
/** A launched token: 6 decimals, a billion whole tokens, all of them in the pool. */
export const LAUNCH_DECIMALS = 6;
export const LAUNCH_SUPPLY_RAW = 1_000_000_000n * 10n ** BigInt(LAUNCH_DECIMALS);
const MINT_SPACE_BYTES = 82;
const TOKEN_ACCOUNT_SPACE_BYTES = 165;
/** Launch fees a launchpad charges, basis points. */
const LAUNCH_FEES_BPS = [25, 30, 100] as const;
/** Quote liquidity bounds in whole tokens per quote mint (log-uniform between). */
const QUOTE_RANGE_UI: Readonly<Record<string, readonly [number, number]>> = { [WSOL_MINT]: [1, 40], [USDC_MINT]: [200, 8_000] };
/** A trader puts at most this share of its quote balance into one launch. */
const MAX_BALANCE_SHARE = 20n;
/** Launch numbers already taken on a restored chain are skipped, at most this many at a time. */
const MAX_SKIPPED_LAUNCHES = 10_000;

interface QuoteMint {
  readonly mint: string;
  readonly decimals: number;
  readonly programId: string;
}

/**
 * What a restart needs of a landed launch to list its pool again: the rest (keys, vaults, the
 * reserves) follows from the seed and the chain's restored accounts.
 */
export interface LaunchRecord {
  readonly n: number;
  readonly quoteMint: string;
  readonly feeBps: number;
  readonly createdAt: number;
  readonly quoteAmount: bigint;
}

export interface PoolLauncherConfig {
  readonly chain: LocalChain;
  readonly seed: string;
  readonly seeded: readonly WorldPool[];
  readonly traders: readonly WorldTrader[];
  /** Produced slots between two launches; 0 never launches. */
  readonly everySlots: number;
  /** Launches a saved state kept (oldest first): their pools are listed again when their mint is on chain. */
  readonly restored?: readonly LaunchRecord[];
}

export interface PoolLauncher {
  /** Called once per produced slot, before it closes: sends the launch when one is due. */
  onSlot(): ProducedTransaction | null;
  /** The seeded pools and every pool launched so far, oldest first. */
  pools(): readonly WorldPool[];
  /** Every landed launch so far, restored ones first: what a saved state keeps. */
  launches(): readonly LaunchRecord[];
}

/** The quote mints of the seeded pools a launch may pair with (SOL, USDC). */
function quoteMints(seeded: readonly WorldPool[]): QuoteMint[] {
  const out = new Map<string, QuoteMint>();
  for (const p of seeded) {
    for (const side of [
      { mint: p.mintA, decimals: p.decimalsA, programId: p.programIdA },
      { mint: p.mintB, decimals: p.decimalsB, programId: p.programIdB },
    ]) {
      if (QUOTE_RANGE_UI[side.mint] !== undefined) out.set(side.mint, side);
    }
  }
  return [...out.values()].sort((a, b) => a.mint.localeCompare(b.mint));
}

interface LaunchAccounts {
  readonly payer: string;
  readonly mint: string;
  readonly vaultA: string;
  readonly vaultB: string;
  readonly authority: string;
  /** The payer's token account of the quote mint. */
  readonly source: string;
}

/** The instructions of one launch: the mint, the two vaults, the supply into the base vault, the quote liquidity into the other. */
function launchIxs(chain: LocalChain, a: LaunchAccounts, quote: QuoteMint, quoteAmount: bigint) {
  const rentMint = chain.minimumBalanceForRentExemption(MINT_SPACE_BYTES);
  const rentAccount = chain.minimumBalanceForRentExemption(TOKEN_ACCOUNT_SPACE_BYTES);
  return [
    createAccountIx(a.payer, a.mint, rentMint, MINT_SPACE_BYTES, TOKEN_PROGRAM_ID),
    initializeMintIx(a.mint, LAUNCH_DECIMALS, a.payer, TOKEN_PROGRAM_ID),
    createAccountIx(a.payer, a.vaultA, rentAccount, TOKEN_ACCOUNT_SPACE_BYTES, TOKEN_PROGRAM_ID),
    initializeTokenAccountIx(a.vaultA, a.mint, a.authority, TOKEN_PROGRAM_ID),
    createAccountIx(a.payer, a.vaultB, rentAccount, TOKEN_ACCOUNT_SPACE_BYTES, quote.programId),
    initializeTokenAccountIx(a.vaultB, quote.mint, a.authority, quote.programId),
    mintToIx(a.mint, a.vaultA, a.payer, LAUNCH_SUPPLY_RAW, TOKEN_PROGRAM_ID),
    transferCheckedIx({
      source: a.source,
      mint: quote.mint,
      destination: a.vaultB,
      authority: a.payer,
      amount: quoteAmount,
      decimals: quote.decimals,
      programId: quote.programId,
    }),
  ];
}

/** The pool a landed launch made: the new mint's whole supply against the quote put in. */
function launchedPool(
  address: string,
  label: string,
  a: Omit<LaunchAccounts, 'payer' | 'source' | 'authority'>,
  quote: QuoteMint,
  feeBps: number,
  createdAt: WorldPool['createdAt'],
  authority: WorldPool['authority'],
  quoteAmount: bigint,
): WorldPool {
  return {
    address,
    label,
    mintA: a.mint,
    mintB: quote.mint,
    vaultA: a.vaultA,
    vaultB: a.vaultB,
    decimalsA: LAUNCH_DECIMALS,
    decimalsB: quote.decimals,
    programIdA: TOKEN_PROGRAM_ID,
    programIdB: quote.programId,
    feeBps,
    createdAt,
    authority,
    initialReserveA: LAUNCH_SUPPLY_RAW,
    initialReserveB: quoteAmount,
  };
}

/** Creates the launcher; launches go through `chain` like any signed transaction. */
export function createPoolLauncher(config: PoolLauncherConfig): PoolLauncher {
  const { chain } = config;
  const keys = createWorldKeys(config.seed);
  const prng = createPrng(`launches/${config.seed}`);
  const quotes = quoteMints(config.seeded);
  const pools: WorldPool[] = [...config.seeded];
  const launched: LaunchRecord[] = [];
  let slots = 0;
  let next = 0;

  /** Lists a landed launch's pool and keeps its record. */
  function land(record: LaunchRecord): void {
    const quote = quotes.find((q) => q.mint === record.quoteMint);
    if (quote === undefined) return;
    const key = (what: string) => keys.signer(`launch/${record.n}/${what}`);
    const accounts = { mint: key('mint').address, vaultA: key('vault-a').address, vaultB: key('vault-b').address };
    const pool = keys.address(`launch/${record.n}/pool`);
    pools.push(launchedPool(pool, `launch-${record.n}`, accounts, quote, record.feeBps, record.createdAt, key('authority'), record.quoteAmount));
    launched.push(record);
  }

  for (const record of config.restored ?? []) if (chain.getAccount(keys.signer(`launch/${record.n}/mint`).address) !== null) land(record);

  /** The next launch number whose mint is not on chain yet (a restored chain kept earlier launches' accounts). */
  function freeNumber(): number | null {
    for (let skipped = 0; skipped < MAX_SKIPPED_LAUNCHES; skipped++, next++) {
      if (chain.getAccount(keys.signer(`launch/${next}/mint`).address) === null) return next++;
    }
    return null;
  }

  function launch(): ProducedTransaction | null {
    const n = freeNumber();
    if (n === null || quotes.length === 0 || config.traders.length === 0) return null;
    const creator = prng.pick(config.traders);
    const quote = prng.pick(quotes);
    const [low, high] = QUOTE_RANGE_UI[quote.mint]!;
    const feeBps = prng.pick(LAUNCH_FEES_BPS);
    const cu = { limit: 80_000, price: drawCuPrice(prng) };
    const wanted = BigInt(Math.floor(prng.logUniform(low, high) * 10 ** quote.decimals));
    const source = creator.tokenAccounts.get(quote.mint);
    if (source === undefined) return null;
    const quoteAmount = wanted < vaultBalance(chain, source) / MAX_BALANCE_SHARE ? wanted : vaultBalance(chain, source) / MAX_BALANCE_SHARE;
    if (quoteAmount <= 0n) return null;
    const [mint, vaultA, vaultB] = ['mint', 'vault-a', 'vault-b'].map((k) => keys.signer(`launch/${n}/${k}`)) as [WorldSigner, WorldSigner, WorldSigner];
    const authority = keys.signer(`launch/${n}/authority`);
    const accounts = {
      payer: creator.signer.address,
      mint: mint.address,
      vaultA: vaultA.address,
      vaultB: vaultB.address,
      authority: authority.address,
      source,
    };
    const ixs = [...computeBudgetIxs(cu.limit, cu.price), ...launchIxs(chain, accounts, quote, quoteAmount)];
    const signed = buildSignedWire(creator.signer, ixs, chain.latestBlockhash('processed').blockhash, [mint, vaultA, vaultB]);
    const result = chain.sendTransaction(signed.wire);
    const landed = result.ok && result.tx.err === null;
    if (landed) land({ n, quoteMint: quote.mint, feeBps, createdAt: chain.blockTimeOf(result.tx.slot), quoteAmount });
    return {
      kind: 'launch',
      signature: result.signature,
      landed: result.ok,
      failed: result.ok && result.tx.err !== null,
      computeUnitPrice: cu.price,
      computeUnitLimit: cu.limit,
      tipLamports: 0n,
      tipAccount: null,
      pool: landed ? `launch-${n}` : null,
    };
  }

  return {
    onSlot() {
      if (config.everySlots <= 0) return null;
      slots++;
      return slots % config.everySlots === 0 ? launch() : null;
    },
    pools: () => pools,
    launches: () => launched,
  };
}
