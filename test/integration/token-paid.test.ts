/**
 * Real paid calls to the token endpoints through the running service with the official x402
 * client: token-risk and batch/token-risk answer 200 with a settlement header and a schema-valid
 * body; a mint that does not exist answers 404 and a mint too large to snapshot answers 502
 * snapshot_unavailable, and neither moves money.
 */
import { describe, expect, it } from 'vitest';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { expectSettledAnswer } from '../helpers/check-response.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';
import { readJson } from '../helpers/read-json.ts';

const paid = usePaidService({ localnet: FULL_TRAFFIC });
const mint = (symbol: string) => paid.localnet.world.mints.get(symbol)!.address;

describe('paid token endpoints', () => {
  it('token-risk: 200, settled, schema-valid', async () => {
    const bonk = mint('BONK');
    const before = await paid.payerBalance();
    const body = await expectSettledAnswer(await paid.pay(`/v1/token-risk?mint=${bonk}`));
    expect(body).toMatchObject({ mint: bonk, mintAuthority: { present: false }, freezeAuthority: { present: false } });
    expect(before - (await paid.payerBalance())).toBe(28_000n);
  }, 60_000);

  it('batch/token-risk: duplicates removed, invalid element explicit, 200 settled', async () => {
    const [bonk, usdc] = [mint('BONK'), mint('USDC')];
    const body = await expectSettledAnswer(await paid.pay(`/v1/batch/token-risk?mints=${bonk},${usdc},${bonk},xyz`));
    // What the caller sent (4, BONK twice) beside what was evaluated (3): the duplicate shows.
    expect(body.requested).toBe(4);
    expect(body.count).toBe(3);
    expect(body.results.map((r: { mint: string; error?: string }) => r.error ?? r.mint)).toEqual([bonk, usdc, 'invalid_mint']);
  }, 60_000);

  it('a mint that does not exist: 404 not_found, nothing charged', async () => {
    const before = await paid.payerBalance();
    const res = await paid.pay('/v1/token-risk?mint=11111111111111111111111111111112');
    expect(res.status).toBe(404);
    expect((await readJson(res)).error).toBe('not_found');
    expect(await paid.payerBalance()).toBe(before);
  }, 60_000);

  it('token-holders of USDT (too many accounts to snapshot): 502 snapshot_unavailable, nothing charged', async () => {
    const before = await paid.payerBalance();
    const res = await paid.pay(`/v1/token-holders?mint=${mint('USDT')}`);
    expect(res.status).toBe(502);
    expect(await readJson(res)).toMatchObject({ error: 'snapshot_unavailable', rpcCode: -32010 });
    expect(await paid.payerBalance()).toBe(before);
  }, 60_000);
});
