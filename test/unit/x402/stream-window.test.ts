/**
 * Which window a stream payment buys (src/x402/flow/stream-window.ts): one period for the offer's
 * exact terms, n periods for a Solana `exact` amount of n x the price, and a refusal for anything
 * else a hostile client may write into `accepted`. The chain's part (the transfer holds to the
 * amount) is pinned by test/integration/streams-window.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { STREAM_BY_PATH, STREAM_MAX_WINDOW_PERIODS } from '../../../src/catalog/streams.ts';
import { backoffMs } from '../../../src/client/stream-reconnect.ts';
import type { PaymentRequirements } from '../../../src/x402/types/x402-types.ts';
import { matchStreamPayment } from '../../../src/x402/flow/stream-window.ts';

const stream = STREAM_BY_PATH.get('/v1/stream/tipfloor')!;
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const solana: PaymentRequirements = {
  scheme: 'exact',
  network: SOLANA,
  amount: String(stream.priceUnits),
  asset: 'Mint111111111111111111111111111111111111111',
  payTo: 'PayTo11111111111111111111111111111111111111',
  maxTimeoutSeconds: 60,
  extra: { feePayer: 'Fee1111111111111111111111111111111111111111' },
};
const base: PaymentRequirements = { ...solana, network: 'eip155:8453', asset: '0xusdc', payTo: '0xpayto', extra: { name: 'USDC', version: '2' } };
const channel: PaymentRequirements = { ...base, scheme: 'batch-settlement', extra: { receiverAuthorizer: '0xauth' } };
const accepts = [channel, base, solana];

const paying = (accepted: Record<string, unknown>) => ({ x402Version: 2, accepted, payload: { transaction: 'AAAA' } });
const times = (n: number | bigint) => String(BigInt(stream.priceUnits) * BigInt(n));

describe('matchStreamPayment', () => {
  it('the offer itself buys one period, on every lane', () => {
    for (const terms of accepts) expect(matchStreamPayment(paying({ ...terms }), accepts, stream)).toMatchObject({ ok: true, periods: 1, requirements: terms });
  });

  it('a Solana exact amount of n periods buys n, its requirements the offer at that amount', () => {
    const six = matchStreamPayment(paying({ ...solana, amount: times(6) }), accepts, stream);
    expect(six).toMatchObject({ ok: true, periods: 6, requirements: { ...solana, amount: times(6) } });
    expect(matchStreamPayment(paying({ ...solana, amount: times(STREAM_MAX_WINDOW_PERIODS) }), accepts, stream)).toMatchObject({
      ok: true,
      periods: STREAM_MAX_WINDOW_PERIODS,
    });
  });

  it('refuses a fraction of a period, more than the bound, and amounts that are not plain integers', () => {
    const refused = { ok: false, reason: 'invalid_payment_requirements' };
    for (const amount of [
      String(stream.priceUnits * 1.5),
      times(STREAM_MAX_WINDOW_PERIODS + 1),
      '0',
      '-1000',
      '01000',
      '1e4',
      ' 2000',
      2000,
      null,
      '9'.repeat(40),
    ])
      expect(matchStreamPayment(paying({ ...solana, amount }), accepts, stream), String(amount)).toMatchObject(refused);
  });

  it('only the amount may differ: a window with another payee, asset or extra is refused', () => {
    for (const changed of [
      { payTo: 'Thief1111111111111111111111111111111111111' },
      { asset: 'Other111111111111111111111111111111111111111' },
      { extra: { feePayer: 'x' } },
      { maxTimeoutSeconds: 600 },
    ])
      expect(matchStreamPayment(paying({ ...solana, amount: times(3), ...changed }), accepts, stream)).toMatchObject({ ok: false });
  });

  it('a channel voucher or a Base exact payment buys one period only: a window amount is not their terms', () => {
    for (const terms of [channel, base]) expect(matchStreamPayment(paying({ ...terms, amount: times(3) }), accepts, stream)).toMatchObject({ ok: false });
  });

  it('a stream without a Solana offer sells no window', () => {
    expect(matchStreamPayment(paying({ ...solana, amount: times(3) }), [channel, base], stream)).toMatchObject({ ok: false });
  });
});

describe('the client stream backoff', () => {
  it('doubles from the first wait up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(n, 250, 8_000))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
});
