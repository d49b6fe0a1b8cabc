/**
 * A paid stream bought by a Solana `exact` window of n periods (docs/streams.md#paying-by-time):
 * the real service on port 0 against the embedded localnet, a `ws` client, payments signed by the
 * OFFICIAL @x402/svm `ExactSvmScheme` (the hostile transfer of another payer's tokens is built by
 * hand: no official client makes one). The stream clock is the test's.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelClient } from '../../src/client/intel-client.ts';
import { STREAM_MAX_WINDOW_PERIODS } from '../../src/catalog/streams.ts';
import { STREAM_RENEW_LEAD_MS } from '../../src/http/streams/stream-protocol.ts';
import { decodeReceiptHeader } from '../../src/receipts/receipt.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { manualStreamClock, openStream, type StreamConnection } from '../helpers/stream-client.ts';
import { buildPaymentTx, fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PERIOD_MS = 10_000;
const PRICE = 1_000n;
const TEST_MS = 180_000;
const clock = manualStreamClock();
let t: TestService;
let wsBase: string;

beforeAll(async () => {
  t = await startTestService({ streamClock: clock }, [], FULL_TRAFFIC);
  wsBase = t.url.replace(/^http/, 'ws');
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const entries = () => t.service.ledger.head().treeSize;
const rpc = () => t.localnet!.urls.rpc;
const balance = (p: TestPayer) => tokenBalance(rpc(), p.signer.address, t.localnet!.stablecoinMint);

/** The Solana exact option of a stream's first offer. */
async function solanaOffer(conn: StreamConnection): Promise<PaymentRequirements> {
  const offer = await conn.nextOf('payment-required');
  return offer.paymentRequired.accepts.find((a: PaymentRequirements) => a.scheme === 'exact' && a.network.startsWith('solana:'));
}

/** An official exact-SVM payment of `units` under `terms`, sent as accepting `accepted` (default: the terms paid). */
async function officialPayment(payer: TestPayer, terms: PaymentRequirements, units: bigint, accepted = units) {
  const scheme = new ExactSvmScheme(payer.signer, { rpcUrl: rpc() });
  const { payload } = await scheme.createPaymentPayload(2, { ...terms, amount: String(units) });
  return { x402Version: 2, accepted: { ...terms, amount: String(accepted) }, payload };
}

const priceOf = (receipt: string) => {
  const decoded = decodeReceiptHeader(receipt);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.receipt.priceUsdcUnits;
};

describe('a Solana exact payment buying a window of n periods', () => {
  it(
    'six periods in one transfer: one charge, one receipt, one ledger entry; renew only near the end; a replay resumes it elsewhere without a charge',
    async () => {
      const payer = await fundedPayer(rpc(), 100_000);
      const a = await openStream(`${wsBase}/v1/stream/tipfloor`);
      const terms = await solanaOffer(a);
      expect(terms).toMatchObject({ amount: String(PRICE) });
      const before = entries();
      const payment = await officialPayment(payer, terms, 6n * PRICE);
      a.pay(payment);
      const paid = await a.nextOf('payment-response');
      expect(paid).toMatchObject({ resumed: false, paidUntil: clock.now() + 6 * PERIOD_MS, paymentResponse: { success: true, payer: payer.signer.address } });
      expect(priceOf(paid.receipt)).toBe(6000);
      expect(entries()).toBe(before + 1);
      expect(await a.nextOf('update')).toMatchObject({ topic: 'tipfloor' });
      expect(await balance(payer)).toBe(100_000n - 6n * PRICE);

      // One period in: no renew yet (it comes 2 s before the window's end, not each period).
      clock.advance(PERIOD_MS);
      const b = await openStream(`${wsBase}/v1/stream/tipfloor`);
      await b.nextOf('payment-required');
      b.pay(payment);
      const resumed = await b.nextOf('payment-response');
      expect(resumed).toMatchObject({ resumed: true, paidUntil: paid.paidUntil, receipt: paid.receipt });
      expect(await a.nextOf('closing')).toMatchObject({ reason: 'superseded' });
      expect(entries()).toBe(before + 1);

      clock.advance(paid.paidUntil - STREAM_RENEW_LEAD_MS - clock.now());
      const renew = await b.nextOf('renew');
      expect(renew.paidUntil).toBe(paid.paidUntil);
      b.ws.close();

      // After the window: the same payment buys nothing, and the service offers a new period.
      clock.advance(PERIOD_MS);
      const c = await openStream(`${wsBase}/v1/stream/tipfloor`);
      await c.nextOf('payment-required');
      c.pay(payment);
      expect(await c.nextOf('payment-response')).toMatchObject({ resumed: true, paidUntil: paid.paidUntil });
      expect((await c.nextOf('payment-required')).paymentRequired.error).toMatch(/ended/);
      expect(entries()).toBe(before + 1);
      expect(await balance(payer)).toBe(100_000n - 6n * PRICE);
      c.ws.close();
    },
    TEST_MS,
  );

  it(
    'client.stream({ periods }) pays a window per payment on the Solana lane',
    async () => {
      const payer = await fundedPayer(rpc(), 100_000);
      const client = createIntelClient({ url: t.url, svmKeypair: payer.signer, svmRpcUrl: rpc(), anyAsset: true });
      const stop = new AbortController();
      const before = entries();
      let first: (() => void) | null = null;
      const updated = new Promise<void>((resolve) => (first = resolve));
      const ended = client.stream('tipfloor', { periods: 3, signal: stop.signal, onUpdate: () => first?.() });
      await updated;
      stop.abort();
      const result = await ended;
      expect(result).toMatchObject({ reason: 'ended', periods: 3, paidUnits: 3n * PRICE, reconnects: 0 });
      expect(result.receipts.map(priceOf)).toEqual([3000]);
      expect(entries()).toBe(before + 1);
      expect(await client.stream('tipfloor', { periods: STREAM_MAX_WINDOW_PERIODS + 1 })).toMatchObject({ reason: 'bad_option', periods: 0 });
      client.close();
    },
    TEST_MS,
  );
});

describe('hostile window payments', () => {
  /** A socket's first payment is refused with `error`; nothing is charged or entered, nothing streams. */
  async function refused(payment: unknown, error: string | RegExp) {
    const before = entries();
    const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
    await conn.nextOf('payment-required');
    conn.pay(payment);
    const closing = await conn.next();
    expect(closing).toMatchObject({ type: 'closing', reason: 'payment_refused' });
    expect(closing.error).toMatch(error);
    expect(await conn.closed).toEqual({ code: 4004, reason: 'payment_refused' });
    expect(entries()).toBe(before);
  }

  it(
    'an underpaid window: accepting six periods with a transfer of one is refused by the amount check',
    async () => {
      const payer = await fundedPayer(rpc(), 100_000);
      const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
      const terms = await solanaOffer(conn);
      conn.ws.close();
      await refused(await officialPayment(payer, terms, PRICE, 6n * PRICE), /amount/);
      expect(await balance(payer)).toBe(100_000n);
    },
    TEST_MS,
  );

  it(
    'a window that is not a whole number of periods, or longer than the bound, is refused before verification',
    async () => {
      const payer = await fundedPayer(rpc(), 1_000_000);
      const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
      const terms = await solanaOffer(conn);
      conn.ws.close();
      await refused(await officialPayment(payer, terms, (3n * PRICE) / 2n), 'invalid_payment_requirements');
      const over = BigInt(STREAM_MAX_WINDOW_PERIODS + 1) * PRICE;
      await refused(await officialPayment(payer, terms, over), 'invalid_payment_requirements');
      expect(await balance(payer)).toBe(1_000_000n);
    },
    TEST_MS,
  );

  it(
    "another payer's payment: one already spent on a call is not a stream's, and a transfer of another payer's tokens is refused",
    async () => {
      const other = await fundedPayer(rpc(), 100_000);
      const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
      const terms = await solanaOffer(conn);
      conn.ws.close();
      // `other` pays a call; the same payment replayed on a stream buys nothing.
      const unpaid = await fetch(`${t.url}/v1/tipfloor`);
      expect(unpaid.status).toBe(402);
      await unpaid.arrayBuffer();
      const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8'));
      const callTerms: PaymentRequirements = required.accepts.find((o: PaymentRequirements) => o.scheme === 'exact' && o.network === terms.network);
      const spent = await officialPayment(other, callTerms, BigInt(callTerms.amount));
      const res = await fetch(`${t.url}/v1/tipfloor`, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(spent)).toString('base64') } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      await refused(spent, 'duplicate_settlement');

      // A transfer out of `other`'s token account that `other` never signed (only an official-looking envelope around it).
      const feePayer = String((terms.extra as { feePayer: string }).feePayer);
      const blockhash = (await (
        await fetch(rpc(), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [] }),
        })
      ).json()) as {
        result: { value: { blockhash: string } };
      };
      const transaction = await buildPaymentTx({
        payer: other,
        authority: other.signer.address,
        feePayer,
        mint: terms.asset,
        payTo: terms.payTo,
        amount: 6n * PRICE,
        blockhash: blockhash.result.value.blockhash,
      });
      await refused({ x402Version: 2, accepted: { ...terms, amount: String(6n * PRICE) }, payload: { transaction } }, /./);
      expect(await balance(other)).toBe(100_000n - BigInt(callTerms.amount));
    },
    TEST_MS,
  );
});
