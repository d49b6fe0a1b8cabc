/**
 * The client's channel lane against answers written by hand (no service): the first payment is the
 * official scheme's deposit, then vouchers one price apart, signed natively and recovering to the
 * payer; a channel's calls go one at a time; a hostile answer (a charge above the price, or a
 * corrective 402 whose voucher we never signed) moves nothing; an asset the schemes do not know is
 * refused before anything is signed, unless allowed.
 */
import { describe, expect, it } from 'vitest';
import { recoverVoucherSigner } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { createChannelLane } from '../../../src/client/channel-lane.ts';
import type { HttpAnswer } from '../../../src/client/client-http.ts';
import { createBaseExactLane } from '../../../src/client/exact-lanes.ts';
import type { PreparedPayment } from '../../../src/client/payment-lane.ts';
import { createSpendLedger } from '../../../src/client/spend-limits.ts';
import type { Terms } from '../../../src/client/x402-wire.ts';
import { evmAccountFromKey } from '../../../src/chain/keys/evm-key-file.ts';

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const TERMS: Terms = {
  scheme: 'batch-settlement',
  network: 'eip155:8453',
  amount: '1000',
  asset: USDC_BASE,
  payTo: evmAddressOfKey(generateEvmKey()),
  maxTimeoutSeconds: 60,
  extra: { receiverAuthorizer: evmAddressOfKey(generateEvmKey()), withdrawDelay: 86400, name: 'USD Coin', version: '2', minDeposit: '100000' },
};

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');
const paid = (charged: string, cumulative: string, transaction = ''): HttpAnswer => ({
  status: 200,
  headers: {
    'payment-response': b64({
      success: true,
      transaction,
      network: 'eip155:8453',
      extra: { chargedAmount: charged, channelState: { chargedCumulativeAmount: cumulative } },
    }),
  },
  bytes: Buffer.from('{}'),
});

type Voucher = { channelId: string; maxClaimableAmount: string; signature: string };

async function prepared(lane: ReturnType<typeof createChannelLane>): Promise<PreparedPayment> {
  const p = await lane.prepare(TERMS);
  if (!p.ok) throw new Error(p.message);
  return p.payment;
}

describe('the channel lane', () => {
  it('deposits first, then signs vouchers one price apart that recover to the payer', async () => {
    const key = generateEvmKey();
    const ledger = createSpendLedger();
    const lane = createChannelLane({ key, ledger, anyAsset: false });
    const deposit = await prepared(lane);
    expect(deposit.payload.type).toBe('deposit');
    expect(deposit.depositUnits).toBe(100_000n);
    await deposit.finish(paid('1000', '1000', `0x${'ab'.repeat(32)}`));
    expect(ledger.totals().depositedUnits).toBe(100_000n);
    for (const ceiling of ['2000', '3000']) {
      const next = await prepared(lane);
      expect(next.payload.type).toBe('voucher');
      const voucher = next.payload.voucher as Voucher;
      expect(voucher.maxClaimableAmount).toBe(ceiling);
      const check = await recoverVoucherSigner({ config: next.payload.channelConfig as never, chainId: 8453, ...voucher });
      expect(check).toEqual({ ok: true, signer: evmAddressOfKey(key).toLowerCase() });
      await next.finish(paid('1000', ceiling));
    }
  });

  it('presigns the next voucher while an answer is awaited, and signs anew when the guess misses', async () => {
    const key = generateEvmKey();
    const lane = createChannelLane({ key, ledger: createSpendLedger(), anyAsset: true });
    const deposit = await prepared(lane);
    await deposit.finish(paid('1000', '1000'));
    const payer = evmAddressOfKey(key).toLowerCase();
    // 2000 (signed now, 3000 presigned), 3000 (the presigned one), then a charge below the price and
    // a price change: 3500 and 5500, neither the guess; each must be the voucher of its own ceiling.
    const steps: [Terms, string, string][] = [
      [TERMS, '2000', '2000'],
      [TERMS, '3000', '2500'],
      [{ ...TERMS, amount: '1000' }, '3500', '3500'],
      [{ ...TERMS, amount: '2000' }, '5500', '5500'],
    ];
    for (const [terms, ceiling, cumulative] of steps) {
      const p = await lane.prepare(terms);
      if (!p.ok) throw new Error(p.message);
      const voucher = p.payment.payload.voucher as Voucher;
      expect(voucher.maxClaimableAmount).toBe(ceiling);
      expect(await recoverVoucherSigner({ config: p.payment.payload.channelConfig as never, chainId: 8453, ...voucher })).toEqual({ ok: true, signer: payer });
      expect(p.payment.payloadJson).toBe(JSON.stringify(p.payment.payload));
      await new Promise((resolve) => setImmediate(resolve));
      await p.payment.finish(paid(String(BigInt(cumulative) - BigInt(ceiling) + BigInt(terms.amount)), cumulative));
    }
  });

  it("holds a channel's second call until the first one's answer is taken", async () => {
    const lane = createChannelLane({ key: generateEvmKey(), ledger: createSpendLedger(), anyAsset: true });
    const first = await prepared(lane);
    let secondReady = false;
    const second = prepared(lane).then((p) => {
      secondReady = true;
      return p;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondReady).toBe(false);
    await first.finish(paid('1000', '1000'));
    expect(((await second).payload as { type: string }).type).toBe('voucher');
  });

  it('takes no charge above the price and no corrective state it cannot check; the deposit still counts', async () => {
    const lane = createChannelLane({ key: generateEvmKey(), ledger: createSpendLedger(), anyAsset: true });
    const deposit = await prepared(lane);
    // A hostile answer: a charge of a hundred prices for the deposit's call.
    await deposit.finish(paid('100000', '100000'));
    const next = await prepared(lane);
    expect((next.payload.voucher as Voucher).maxClaimableAmount).toBe('1000');
    // A corrective 402 claiming a charge far above ours, with a voucher signed by another key: no resync (no RPC to check it either).
    const other = await createChannelLane({ key: generateEvmKey(), ledger: createSpendLedger(), anyAsset: true }).prepare(TERMS);
    const stranger = other.ok ? (other.payment.payload.voucher as Voucher) : null;
    const corrective: HttpAnswer = {
      status: 402,
      headers: {
        'payment-required': b64({
          x402Version: 2,
          error: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
          accepts: [
            {
              ...TERMS,
              extra: {
                ...TERMS.extra,
                channelState: { chargedCumulativeAmount: '500000' },
                voucherState: { signedMaxClaimable: '500000', signature: stranger?.signature },
              },
            },
          ],
        }),
      },
      bytes: Buffer.from('{"error":"invalid_batch_settlement_evm_cumulative_amount_mismatch"}'),
    };
    expect(await next.finish(corrective)).toEqual({ resynced: false });
    expect(((await prepared(lane)).payload.voucher as Voucher).maxClaimableAmount).toBe('1000');
  });

  it('refuses an asset the official schemes do not know, before signing, unless told to allow any', async () => {
    const odd = { ...TERMS, asset: '0x000000000000000000000000000000000000dEaD' };
    const channel = createChannelLane({ key: generateEvmKey(), ledger: createSpendLedger(), anyAsset: false });
    expect(await channel.prepare(odd)).toMatchObject({ ok: false, reason: 'asset_not_allowed' });
    const exact = createBaseExactLane(evmAccountFromKey(generateEvmKey()), false);
    expect(await exact.prepare({ ...odd, scheme: 'exact', extra: { name: 'X', version: '1' } })).toMatchObject({ ok: false, reason: 'asset_not_allowed' });
    expect((await createChannelLane({ key: generateEvmKey(), ledger: createSpendLedger(), anyAsset: true }).prepare(odd)).ok).toBe(true);
  });
});
