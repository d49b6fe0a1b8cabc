/**
 * Payment channels for the benchmarks: a payer of the official batch-settlement client opens its
 * channel with one paid call (the deposit), then the vouchers of its next calls are signed ahead
 * with the official `signVoucher`, so a timed phase measures the service and not the signing.
 * Each voucher raises the cumulative ceiling by exactly the price over the one before it: they
 * must be sent in order, one channel's calls one after another.
 */
import type { LocalEvm } from '@solana-x402-intel/localnet';
import type { PaymentRequirements } from '@x402/core/types';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, voucherHeader } from '../test/helpers/channel-payer.ts';

/** What a funded payer may spend in all (USDC units): far above any bench's calls. */
const PAYER_FUNDS = 1_000_000_000n;

/** An open channel and the payment headers of its next calls, in the order they must go. */
export interface OpenChannel {
  readonly payer: ChannelPayer;
  readonly headers: readonly string[];
}

/** The channel option of `url`'s 402 (the route's price and our channel terms). */
export const channelTermsOf = (url: string): Promise<PaymentRequirements> => channelTerms(url);

/**
 * A funded payer whose official client deposits enough for `calls` more calls at `url` (plus the
 * opening one) and opens the channel with one paid call; then, unless `presign` is false, the
 * `calls` vouchers that follow it (without them, the official client pays on by itself).
 */
export async function openChannel(evm: LocalEvm, url: string, terms: PaymentRequirements, calls: number, presign = true): Promise<OpenChannel> {
  const price = BigInt(terms.amount);
  const minDeposit = BigInt((terms.extra as { minDeposit?: string }).minDeposit ?? '0');
  const wanted = price * BigInt(calls + 1);
  const payer = await channelPayer(evm, PAYER_FUNDS, wanted > minDeposit ? wanted : minDeposit);
  const opened = await payer.pay(url);
  const body = await opened.text();
  if (opened.status !== 200) throw new Error(`opening a channel at ${url} answered ${opened.status}: ${body}`);
  if (!presign) return { payer, headers: [] };
  const { config, channelId } = channelOf(payer, terms);
  const headers: string[] = [];
  // The opening call charged one price: voucher k (from 0) is the ceiling of k + 2 calls.
  for (let k = 0; k < calls; k++) headers.push(await voucherHeader(terms, payer.key, config, channelId, price * BigInt(k + 2)));
  return { payer, headers };
}
