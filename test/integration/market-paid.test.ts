/**
 * Real paid HTTP calls to the market endpoints with the official x402 client against the running
 * service and its embedded localnet: dex-quote, slippage-map and lending/markets answer 200 with a
 * receipt and a contract-shaped body; an unknown NFT symbol answers 404 and the pay-to balance does
 * not move (nothing settled).
 */
import { describe, expect, it } from 'vitest';
import { expectSettledAnswer } from '../helpers/check-response.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';
import { readJson } from '../helpers/read-json.ts';

const WSOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const paid = usePaidService();

describe('paid market calls', () => {
  it('dex-quote: 200 with receipt and contract fields, price moved to pay-to', async () => {
    const before = await paid.payToBalance();
    const body = await expectSettledAnswer(await paid.pay(`/v1/dex-quote?inputMint=${WSOL}&outputMint=${USDC}&amount=1000000000&slippageBps=50`));
    expect(BigInt(body.output.minReceived)).toBe((BigInt(body.output.amount) * 9950n) / 10_000n);
    expect(await paid.payToBalance()).toBe(before + 3000n);
  }, 60_000);

  it('slippage-map and lending/markets: 200 with contract-shaped bodies', async () => {
    const mapBody = await expectSettledAnswer(await paid.pay(`/v1/slippage-map?inputMint=${WSOL}&outputMint=${USDC}&amount=1000000000&mults=0.5,1,2,1000`));
    expect(mapBody.points.map((p: { mult: number }) => p.mult)).toEqual([0.5, 1, 2, 1000]);
    const lendingBody = await expectSettledAnswer(await paid.pay('/v1/lending/markets?limit=2'));
    expect(lendingBody.markets).toHaveLength(2);
  }, 60_000);

  it('nft-collection for an unknown symbol: 404, nothing settled', async () => {
    const before = await paid.payToBalance();
    const res = await paid.pay('/v1/nft-collection?symbol=no_such_collection');
    expect(res.status).toBe(404);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await readJson(res)).toMatchObject({ error: 'not_found' });
    expect(await paid.payToBalance()).toBe(before);
    await expectSettledAnswer(await paid.pay('/v1/nft-collection?symbol=local_apes'));
  }, 60_000);
});
