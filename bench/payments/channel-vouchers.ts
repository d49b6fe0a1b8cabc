/**
 * Payment channels for the benchmarks: a payer of the official batch-settlement client opens its
 * channel with one paid call (the deposit), then the vouchers of its next calls are signed ahead
 * with the official `signVoucher`, so a timed phase measures the service and not the signing.
 * Each voucher raises the cumulative ceiling by exactly the price over the one before it: they
 * must be sent in order, one channel's calls one after another.
 */
import type { LocalEvm } from '@solana-x402-intel/localnet';
import type { PaymentRequirements } from '@x402/core/types';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, voucherHeader } from '../../test/helpers/channel-payer.ts';

/** What a funded payer may spend in all (USDC units): far above any bench's calls. */
const PAYER_FUNDS = 1_000_000_000n;

/** An open channel and the payment headers of its next calls, in the order they must go. */
export interface OpenChannel {
  readonly payer: ChannelPayer;
  readonly headers: readonly string[];
}

/** The channel option of `url`'s 402 (the route's price and our channel terms). */
export const channelTermsOf = (url: string): Promise<PaymentRequirements> => channelTerms(url);

/** Options of `openChannel`. */
export interface OpenOptions {
  /** Sign the vouchers ahead (default); false leaves the paying to the official client. */
  readonly presign?: boolean;
  /** The terms of the calls after the opening one, when another route's (default `terms`). */
  readonly next?: PaymentRequirements;
  /** The fetch under the official client (e.g. one that marks each request); the global one by default. */
  readonly fetch?: typeof fetch;
}

/** Vouchers signed between two turns of the event loop. */
const VOUCHERS_PER_TURN = 16;

/**
 * A funded payer whose official client deposits enough for the opening call at `url` and `calls`
 * more, and opens the channel with that call; then the `calls` vouchers that follow it. A channel
 * is the payer's and ours, not a route's: it may be opened on a cheap route and spent on another.
 */
export async function openChannel(evm: LocalEvm, url: string, terms: PaymentRequirements, calls: number, options: OpenOptions = {}): Promise<OpenChannel> {
  const next = options.next ?? terms;
  const [opening, price] = [BigInt(terms.amount), BigInt(next.amount)];
  const minDeposit = BigInt((terms.extra as { minDeposit?: string }).minDeposit ?? '0');
  const wanted = opening + price * BigInt(calls);
  const payer = await channelPayer(evm, PAYER_FUNDS, wanted > minDeposit ? wanted : minDeposit, { fetch: options.fetch });
  const opened = await payer.pay(url);
  const body = await opened.text();
  if (opened.status !== 200) throw new Error(`opening a channel at ${url} answered ${opened.status}: ${body}`);
  if (options.presign === false) return { payer, headers: [] };
  const { config, channelId } = channelOf(payer, next);
  const headers: string[] = [];
  // Cumulative ceilings: what the opening call charged, plus one price per call, in order.
  for (let k = 1; k <= calls; k++) {
    headers.push(await voucherHeader(next, payer.key, config, channelId, opening + price * BigInt(k)));
    // The bench's chain answers from this process: hundreds of signatures in a row, all microtasks,
    // would hold its RPC for seconds while other channels' deposits wait on it (and their 60 s
    // authorizations run out: docs/payments.md, the deposit paragraph).
    if (k % VOUCHERS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return { payer, headers };
}
