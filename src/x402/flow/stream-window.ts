/**
 * Which window a stream payment buys (docs/streams.md#paying-by-time). A payment whose `accepted`
 * terms are exactly one of the period's offers buys one period, as a call's payment buys one
 * answer. A Solana `exact` payment may also buy `n` periods at once: its `accepted` terms are the
 * period's Solana `exact` offer with `amount` = n x the period's price, 2 <= n <=
 * STREAM_MAX_WINDOW_PERIODS, every other term unchanged. Only the amount may differ, and the
 * scheme's verification then holds the transaction to that amount (a transfer of less is refused
 * as any underpaid `exact` payment is), so a client cannot name a window it did not pay for.
 */
import { STREAM_MAX_WINDOW_PERIODS, STREAM_WINDOW_NETWORK_PREFIX, type StreamEntry } from '../../catalog/streams.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';
import { matchPayment } from './decode-payment.ts';

export type WindowMatch =
  | { readonly ok: true; readonly payment: PaymentPayload; readonly requirements: PaymentRequirements; readonly periods: number }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** A base-10 integer without sign or leading zero, as x402 amounts are written (at most 15 digits: exact in a double). */
const AMOUNT = /^[1-9][0-9]{0,14}$/;

const NOT_A_WINDOW = `a Solana exact payment buys a whole number of periods, 1 to ${STREAM_MAX_WINDOW_PERIODS}: its amount is that number times the period's price`;

/** The offer a window payment stands on: the period's Solana `exact` option its `accepted` names, if any. */
function windowOffer(parsed: unknown, accepts: readonly PaymentRequirements[]): { offer: PaymentRequirements; amount: unknown } | null {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const accepted = (parsed as { accepted?: unknown }).accepted;
  if (typeof accepted !== 'object' || accepted === null) return null;
  const { scheme, network, amount } = accepted as Record<string, unknown>;
  if (scheme !== 'exact' || typeof network !== 'string' || !network.startsWith(STREAM_WINDOW_NETWORK_PREFIX)) return null;
  const offer = accepts.find((a) => a.scheme === 'exact' && a.network === network);
  return offer ? { offer, amount } : null;
}

/** Matches a stream payment against one period's offers, and says how many periods it buys. */
export function matchStreamPayment(parsed: unknown, accepts: readonly PaymentRequirements[], stream: StreamEntry): WindowMatch {
  const single = matchPayment(parsed, accepts);
  if (single.ok) return { ...single, periods: 1 };
  const window = windowOffer(parsed, accepts);
  if (!window) return single;
  const { offer, amount } = window;
  if (typeof amount !== 'string' || !AMOUNT.test(amount)) return { ok: false, reason: 'invalid_payment_requirements', message: NOT_A_WINDOW };
  const units = BigInt(amount);
  const price = BigInt(stream.priceUnits);
  const periods = units / price;
  if (units % price !== 0n || periods < 2n || periods > BigInt(STREAM_MAX_WINDOW_PERIODS))
    return { ok: false, reason: 'invalid_payment_requirements', message: NOT_A_WINDOW };
  // Every other term must still be the offer's own: matched as a single period is, against the offer at this amount.
  const matched = matchPayment(parsed, [{ ...offer, amount }]);
  return matched.ok ? { ...matched, periods: Number(periods) } : single;
}
