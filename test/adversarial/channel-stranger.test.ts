/**
 * A stranger who knows only a payment channel's id (public: every claim and deposit names it, and
 * the deposit's calldata carries the channel's config) against the running service, with hand-built
 * payloads beside a victim paying with the official client: a garbage voucher must not hand back
 * the victim's last voucher (issue 28 row 3); the victim's voucher replayed, as the stranger could
 * hold it, must not hand back the victim's answer (row 4); and a refund must not be started by a
 * stranger (row 5). Each attack first tries what worked before the fix: the corrective 402's leak.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PaymentRequirements } from '@x402/core/types';
import { decodeFunctionData } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain, settlementAbi } from '../helpers/batch-settlement-chain.ts';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, NO_AUTOMATIC_CLAIM } from '../helpers/channel-payer.ts';
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

type Voucher = { channelId: string; maxClaimableAmount: string; signature: string };
const header = (payload: Record<string, unknown>) => Buffer.from(JSON.stringify({ x402Version: 2, accepted: terms, payload })).toString('base64');
const send = (path: string, payload: Record<string, unknown>) => fetch(`${t.url}${path}`, { headers: { 'PAYMENT-SIGNATURE': header(payload) } });
const garbage = (channelId: string, max: bigint): Voucher => ({
  channelId,
  maxClaimableAmount: max.toString(),
  signature: `0x${randomBytes(65).toString('hex')}`,
});

async function victimWithCalls(calls: number): Promise<{ victim: ChannelPayer; config: Record<string, unknown>; channelId: string }> {
  const victim = await channelPayer(t.localnet!.evm, 1_000_000n, 50n * PRICE);
  for (let i = 0; i < calls; i++) {
    const res = await victim.pay(`${t.url}/v1/epoch`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
  const { config, channelId } = channelOf(victim, terms);
  return { victim, config: config as unknown as Record<string, unknown>, channelId };
}

/** What a 402 tells: its reason and the channel option's extra. */
async function told(res: Response): Promise<{ status: number; error: string; extra: Record<string, unknown>; receipt: string | null; settled: string | null }> {
  const body = (await res.json()) as { error: string };
  const header = res.headers.get('payment-required');
  const accepts = header
    ? (JSON.parse(Buffer.from(header, 'base64').toString()) as { accepts: { scheme: string; extra: Record<string, unknown> }[] }).accepts
    : [];
  const extra = accepts.find((a) => a.scheme === 'batch-settlement')?.extra ?? {};
  return { status: res.status, error: body.error, extra, receipt: res.headers.get('x-service-receipt'), settled: res.headers.get('payment-response') };
}

/** The stranger's first move: a garbage voucher for the channel, hoping for the corrective 402's voucherState. */
async function probe(path: string, config: Record<string, unknown>, channelId: string, type = 'voucher') {
  const reply = await told(await send(path, { type, channelConfig: config, voucher: garbage(channelId, 1n) }));
  return { reply, leaked: (reply.extra.voucherState as { signature?: string } | undefined)?.signature ?? null };
}

/** A channel config of the stranger's own under our terms (its payer and salt), not hashing to the victim's id. */
function ownConfig(victimConfig: Record<string, unknown>): Record<string, unknown> {
  const stranger = evmAddressOfKey(generateEvmKey());
  return { ...victimConfig, payer: stranger, payerAuthorizer: stranger, salt: `0x${randomBytes(32).toString('hex')}` };
}

async function adminClaim(): Promise<{ lastClaim: { transaction: string } | null; lastError: string | null }> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  const res = await fetch(`${t.service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as { lastClaim: { transaction: string } | null; lastError: string | null };
}

/** The vouchers a claim transaction put on chain, as anyone reading its calldata has them. */
async function vouchersOnChain(hash: string): Promise<{ config: Record<string, unknown>; max: bigint; signature: string }[]> {
  const chain = new BatchSettlementChain(t.localnet!.evm);
  const tx = await chain.publicClient.getTransaction({ hash: hash as `0x${string}` });
  const { args } = decodeFunctionData({ abi: settlementAbi, data: tx.input });
  const claims = args![0] as { voucher: { channel: Record<string, unknown>; maxClaimableAmount: bigint }; signature: string }[];
  return claims.map((c) => ({
    config: { ...c.voucher.channel, withdrawDelay: Number(c.voucher.channel.withdrawDelay) },
    max: c.voucher.maxClaimableAmount,
    signature: c.signature,
  }));
}

describe('a stranger who knows only a channel id', () => {
  it('row 3: a garbage voucher gets a plain 402 that tells nothing of the channel, not its last voucher', async () => {
    const { config, channelId } = await victimWithCalls(2);
    for (const path of ['/v1/epoch', '/v1/epoch?rate=alt']) {
      // With the victim's config (public in its deposit's calldata) and with one of the stranger's own.
      for (const cfg of [config, ownConfig(config)]) {
        const { reply, leaked } = await probe(path, cfg, channelId);
        expect(leaked).toBeNull();
        expect(reply.status).toBe(402);
        expect(reply.error).toMatch(/^invalid_batch_settlement_evm_(voucher_signature|channel_id_mismatch)/);
        expect(reply.extra.channelState).toBeUndefined();
        expect(reply.extra.voucherState).toBeUndefined();
      }
    }
  });

  it("row 4: the victim's voucher replayed by the stranger gets no answer, no receipt and names no one", async () => {
    const { victim, config, channelId } = await victimWithCalls(2);
    const { leaked } = await probe('/v1/epoch', config, channelId);
    const last = (JSON.parse(Buffer.from(victim.lastPayment!, 'base64').toString()) as { payload: { voucher: Voucher } }).payload.voucher;
    // The leak of the corrective 402, or, failing that, the victim's voucher as it would leak elsewhere.
    const voucher: Voucher = { channelId, maxClaimableAmount: last.maxClaimableAmount, signature: leaked ?? last.signature };
    const replayed = await told(await send('/v1/epoch', { type: 'voucher', channelConfig: ownConfig(config), voucher }));
    expect(replayed).toMatchObject({ status: 402, receipt: null, settled: null });
    expect(replayed.error).toMatch(/^invalid_batch_settlement_evm_channel_id_mismatch/);

    // Once claimed, the voucher is public (the claim's calldata carries it, with the config): it buys nothing either.
    const claimed = await adminClaim();
    expect(claimed.lastError).toBeNull();
    const onChain = (await vouchersOnChain(claimed.lastClaim!.transaction)).find((v) => String(v.config.payer).toLowerCase() === victim.address.toLowerCase())!;
    expect(onChain.max).toBe(BigInt(last.maxClaimableAmount));
    const fromChain = { channelId, maxClaimableAmount: onChain.max.toString(), signature: onChain.signature };
    const again = await told(await send('/v1/epoch', { type: 'voucher', channelConfig: onChain.config, voucher: fromChain }));
    expect(again).toMatchObject({ status: 402, receipt: null, settled: null });
    expect(again.error).toMatch(/^invalid_batch_settlement_evm_cumulative_below_claimed/);
    expect(again.extra.voucherState).toBeUndefined();
    // The victim itself pays on, resynced by the official client from the chain.
    const next = await victim.pay(`${t.url}/v1/epoch`);
    expect(next.status).toBe(200);
  }, 60_000);

  it("row 5: a refund asked by the stranger is refused and the victim's channel stays open", async () => {
    const { victim, config, channelId } = await victimWithCalls(2);
    const { reply, leaked } = await probe('/v1/epoch', config, channelId, 'refund');
    expect(reply.status).toBe(402);
    expect(reply.extra.voucherState).toBeUndefined();
    if (leaked) {
      // Before the fix: the leaked signature is the zero-charge voucher a refund asks for.
      const voucher = { channelId, maxClaimableAmount: (reply.extra.voucherState as { signedMaxClaimable: string }).signedMaxClaimable, signature: leaked };
      const refunded = await send('/v1/epoch', { type: 'refund', channelConfig: config, voucher });
      expect(refunded.status).toBe(402);
    }
    const chain = new BatchSettlementChain(t.localnet!.evm);
    expect((await chain.channel(channelId as `0x${string}`)).balance).toBe(50n * PRICE);
    const next = await victim.pay(`${t.url}/v1/epoch`);
    expect(next.status).toBe(200);
    expect(next.headers.get('payment-response')).toBeTruthy();
  }, 60_000);
});
