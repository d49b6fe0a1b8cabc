/**
 * A payer's own voucher whose signature the channel contract will refuse at the claim, against the
 * running service and its local EVM: the same r and s with the recovery byte written 0 or 1 instead
 * of 27 or 28. Off chain, the key recovers the same either way (viem and libsecp256k1 take both);
 * the contract's ECDSA check takes only 27 and 28 (as OpenZeppelin's and `ecrecover` do), so such a
 * voucher can never be claimed. Answered, its call was never paid: the claim of the channel reverts,
 * the channel is quarantined with the calls it owes, and the payer takes its deposit back.
 */
import { readFileSync } from 'node:fs';
import type { PaymentRequirements } from '@x402/core/types';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { BASE, channelOf, channelPayer, channelTerms, refusalOf, NO_AUTOMATIC_CLAIM } from '../helpers/channel-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PRICE = 1000n;
let t: TestService;
let terms: PaymentRequirements;

beforeAll(async () => {
  t = await startTestService({}, NO_AUTOMATIC_CLAIM);
  terms = await channelTerms(`${t.url}/v1/epoch`);
}, 120_000);
afterAll(async () => {
  await t.close();
});

async function adminClaim(): Promise<any> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  const res = await fetch(`${t.service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

describe('a voucher signed with a recovery byte of 0 or 1', () => {
  it('is refused before any answer; what was answered is claimed on chain', async () => {
    const chain = new BatchSettlementChain(t.localnet!.evm);
    const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 50n * PRICE);
    // The deposit and its first voucher, by the official client: one call paid.
    const first = await payer.pay(`${t.url}/v1/epoch`);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const { config, channelId } = channelOf(payer, terms);
    let answered = 1n;
    for (let attempt = 0; attempt < 3; attempt++) {
      // The payer's own voucher for the next call, its v (27 or 28) rewritten as the bare recovery id (0 or 1).
      const voucher = await signVoucher(evmAccountFromKey(payer.key), channelId, ((answered + 1n) * PRICE).toString(), BASE);
      const v = Number.parseInt(voucher.signature.slice(130), 16);
      expect([27, 28]).toContain(v);
      const signature = `${voucher.signature.slice(0, 130)}0${v - 27}`;
      const payment = { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher: { ...voucher, signature } } };
      const res = await fetch(`${t.url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payment)).toString('base64') } });
      if (res.status === 200) {
        answered += 1n;
        await res.arrayBuffer();
      } else {
        expect(res.status).toBe(402);
        expect((await refusalOf(res)).error).toMatch(/^invalid_batch_settlement_evm_voucher_signature/);
      }
    }
    // Every answer given is money the contract pays us: the claim carries the last voucher taken.
    const claim = await adminClaim();
    expect(claim.quarantined?.count ?? 0).toBe(0);
    expect((await chain.channel(channelId)).totalClaimed).toBe(answered * PRICE);
    expect(answered).toBe(1n);
  }, 120_000);
});
