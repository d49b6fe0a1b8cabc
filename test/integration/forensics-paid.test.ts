/**
 * Real paid HTTP calls to the forensics endpoints with the official x402 client against the
 * running service and its embedded localnet: wallet-scan and tx-inspect answer 200 with their
 * schemas and exact price moved; a tx-inspect 404 and a simulate 400 (undecodable transaction
 * found only after payment) leave the payer's balance unchanged; pretrade answers 200 with each
 * unavailable part as an explicit error field.
 */
import { describe, expect, it } from 'vitest';
import { buildSignedWire, signerFromSeed } from '@solana-x402-intel/localnet';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { expectSettledAnswer } from '../helpers/check-response.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';
import { readJson } from '../helpers/read-json.ts';

const paid = usePaidService({ localnet: FULL_TRAFFIC });

describe('paid forensics calls', () => {
  it('wallet-scan of a heavy wallet: 200, schema, band, price moved', async () => {
    const w = paid.localnet.world.wallets.heavy[0]!;
    const before = await paid.payerBalance();
    const body = await expectSettledAnswer(await paid.pay(`/v1/wallet-scan?address=${w.address}`));
    expect(body.profile.band).toBe('heavy');
    expect(await paid.payerBalance()).toBe(before - 20_000n);
  }, 60_000);

  it('tx-inspect of a wallet transfer: 200 with named programs and balance changes', async () => {
    const w = paid.localnet.world.wallets.fresh[0]!;
    const body = await expectSettledAnswer(await paid.pay(`/v1/tx-inspect?sig=${w.signatures[1]}`));
    expect(body).toMatchObject({ success: true, signature: w.signatures[1] });
    expect(body.programsInvoked.map((p: { name: string }) => p.name)).toEqual(['System Program']);
    expect(body.solBalanceChanges).toHaveLength(2);
  }, 60_000);

  it('tx-inspect of an unknown signature: 404 not_found and no charge', async () => {
    const sig = buildSignedWire(signerFromSeed(new Uint8Array(32).fill(8)), [], paid.localnet.chain.latestBlockhash('processed').blockhash).signature;
    const before = await paid.payerBalance();
    const res = await paid.pay(`/v1/tx-inspect?sig=${sig}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await readJson(res)).toMatchObject({ error: 'not_found' });
    expect(await paid.payerBalance()).toBe(before);
  }, 60_000);

  it('simulate of garbage bytes in valid base64: 400 invalid_transaction and no charge', async () => {
    const before = await paid.payerBalance();
    const tx = Buffer.from(new Uint8Array(120).fill(0x41)).toString('base64');
    const res = await paid.pay(`/v1/simulate?tx=${encodeURIComponent(tx)}`);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toMatchObject({ error: 'invalid_transaction', param: 'tx' });
    expect(await paid.payerBalance()).toBe(before);
  }, 60_000);

  it('pretrade: 200, parts that could not be computed are explicit error fields', async () => {
    const mint = paid.localnet.world.mints.get('mintable')!;
    const body = await expectSettledAnswer(await paid.pay(`/v1/pretrade?mint=${mint.address}`));
    for (const part of ['digest', 'tokenIntel', 'largestHolder', 'priorityFee'] as const) {
      const value = body[part] as Record<string, unknown>;
      expect(value, part).toBeTypeOf('object');
      if ('error' in value) expect(value).toMatchObject({ error: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) });
    }
    expect(body.digest.riskBand).toBeTypeOf('string');
    expect(body.largestHolder.band).toMatch(/^(fresh|active|heavy|empty)$/);
    expect(body.largestHolder.source).toMatch(/^token-intel/);
    expect(body.checklist[0]).toMatchObject({ observed: mint.mintAuthority === null });
  }, 60_000);
});
