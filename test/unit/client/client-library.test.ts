/**
 * The client library's pure parts: its native voucher signature is the official `signVoucher`'s,
 * byte for byte, and so is the per-channel signer's (the digest laid out once); the header written
 * around kept JSON is `JSON.stringify`'s bytes; the payment header it builds is one the service decodes (terms matched, id read)
 * in the official member order; terms compare without their live fields; the spend ledger holds,
 * gives back and refuses as documented; untrusted headers decode to null, never a throw.
 */
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { describe, expect, it } from 'vitest';
import { signVoucherNative } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { createVoucherSigner } from '../../../src/chain/evm/voucher-signer.ts';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { encodePaymentHeader, newPaymentId } from '../../../src/client/payment-header.ts';
import { pathAndQuery } from '../../../src/client/paid-call.ts';
import { sameTerms } from '../../../src/client/route-terms.ts';
import { createSpendLedger } from '../../../src/client/spend-limits.ts';
import { decodePaymentRequired, decodePaymentResponse, type Terms } from '../../../src/client/x402-wire.ts';
import { decodePayment } from '../../../src/x402/flow/decode-payment.ts';
import { extractPaymentId } from '../../../src/x402/types/payment-identifier.ts';

const CHANNEL: Terms = {
  scheme: 'batch-settlement',
  network: 'eip155:8453',
  amount: '1000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 60,
  extra: { receiverAuthorizer: '0x2222222222222222222222222222222222222222', withdrawDelay: 86400, name: 'USD Coin', version: '2', minDeposit: '100000' },
};
const SOLANA: Terms = {
  scheme: 'exact',
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  amount: '1000',
  asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  payTo: '7vTYCsB1fxKWrXyVPo396pRHXC8WdcHC9bb3RFw9eWXg',
  maxTimeoutSeconds: 60,
  extra: { feePayer: '7vTYCsB1fxKWrXyVPo396pRHXC8WdcHC9bb3RFw9eWXg' },
};

describe('native voucher signing', () => {
  it("makes the official signVoucher's signature, byte for byte", async () => {
    for (let i = 0; i < 8; i++) {
      const key = generateEvmKey();
      const account = evmAccountFromKey(key);
      const config = {
        payer: account.address,
        payerAuthorizer: account.address,
        receiver: CHANNEL.payTo,
        receiverAuthorizer: CHANNEL.extra.receiverAuthorizer as string,
        token: CHANNEL.asset,
        withdrawDelay: 86400,
        salt: `0x${'00'.repeat(32)}`,
      };
      const channelId = computeChannelId(config as never, 'eip155:8453');
      const amount = BigInt(i) * 123_456_789n + 1n;
      const official = await signVoucher(account, channelId, amount.toString(), 'eip155:8453');
      expect(await signVoucherNative(channelId, amount, 8453, Buffer.from(key.slice(2), 'hex'))).toBe(official.signature);
    }
  });

  it("signs a channel's vouchers from its kept digest layout as signVoucherNative does, at every width of the ceiling", async () => {
    const key = Buffer.from(generateEvmKey().slice(2), 'hex');
    const channelId = `0x${'5a'.repeat(32)}`;
    const sign = createVoucherSigner(channelId, 8453, key);
    // Reused buffers: a wide ceiling after a narrow one (and back) must leave no stale bytes.
    for (const amount of [1n, (1n << 128n) - 1n, 1_000n, 1n << 64n, (1n << 64n) - 1n, 0n, 123_456_789_012_345n]) {
      expect(await sign(amount)).toBe(await signVoucherNative(channelId, amount, 8453, key));
    }
    expect(await createVoucherSigner(channelId, 84532, key)(1_000n)).toBe(await signVoucherNative(channelId, 1_000n, 84532, key));
    await expect(sign(1n << 128n)).rejects.toThrow('uint128');
    await expect(sign(-1n)).rejects.toThrow('uint128');
  });

  it('refuses a ceiling that is not a uint128', async () => {
    const key = Buffer.from(generateEvmKey().slice(2), 'hex');
    await expect(signVoucherNative(`0x${'11'.repeat(32)}`, 1n << 128n, 8453, key)).rejects.toThrow('uint128');
  });
});

describe('the payment header', () => {
  it("is decoded by the service as the route's terms, with the payment-identifier id, in the official member order", () => {
    const id = newPaymentId();
    const header = encodePaymentHeader({ ...SOLANA, extra: { ...SOLANA.extra } }, { transaction: 'AAAA' }, 'http://127.0.0.1:8402/v1/epoch', id);
    const json = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    expect(Object.keys(json)).toEqual(['x402Version', 'payload', 'extensions', 'resource', 'accepted']);
    const decoded = decodePayment(header, [SOLANA as never, CHANNEL as never]);
    expect(decoded.ok).toBe(true);
    expect(decoded.ok && extractPaymentId(decoded.payment)).toEqual({ ok: true, id });
    const withoutId = JSON.parse(Buffer.from(encodePaymentHeader(CHANNEL, {}, 'http://x/v1/epoch', null), 'base64').toString('utf8'));
    expect(Object.keys(withoutId)).toEqual(['x402Version', 'payload', 'resource', 'accepted']);
  });

  it('written around kept JSON (the option, the payload text), is the bytes JSON.stringify makes of the whole', () => {
    const payload = {
      type: 'voucher',
      channelConfig: { payer: '0xab', salt: '0x00' },
      voucher: { channelId: '0x11', maxClaimableAmount: '2000', signature: '0x22' },
    };
    const url = 'http://127.0.0.1:8402/v1/dex-quote?inputMint=a+b&note=%22q%22';
    for (const id of [null, newPaymentId()]) {
      const whole = {
        x402Version: 2,
        payload,
        ...(id === null ? {} : { extensions: { 'payment-identifier': { info: { required: false, id } } } }),
        resource: { url },
        accepted: CHANNEL,
      };
      const expected = Buffer.from(JSON.stringify(whole)).toString('base64');
      expect(encodePaymentHeader(CHANNEL, payload, url, id, JSON.stringify(payload))).toBe(expected);
      // Twice: the second reads the option's kept JSON.
      expect(encodePaymentHeader(CHANNEL, payload, url, id)).toBe(expected);
    }
  });

  it('carries the query in the order given, encoded', () => {
    expect(pathAndQuery('/v1/epoch')).toBe('/v1/epoch');
    expect(pathAndQuery('/v1/dex-quote', { inputMint: 'a b', amount: 5, exactOut: false })).toBe('/v1/dex-quote?inputMint=a+b&amount=5&exactOut=false');
  });
});

describe('terms', () => {
  it('are the same without their live fields, and differ on any term', () => {
    expect(sameTerms(SOLANA, { ...SOLANA, extra: { ...SOLANA.extra, recentBlockhash: 'abc' } })).toBe(true);
    expect(sameTerms(SOLANA, { ...SOLANA, amount: '2000' })).toBe(false);
    expect(sameTerms(CHANNEL, { ...CHANNEL, extra: { ...CHANNEL.extra, receiverAuthorizer: '0x3333333333333333333333333333333333333333' } })).toBe(false);
    expect(sameTerms(CHANNEL, { ...CHANNEL, extra: { ...CHANNEL.extra, minDeposit: '200000' } })).toBe(false);
    expect(sameTerms(CHANNEL, { ...CHANNEL, extra: { ...CHANNEL.extra, added: 'x' } })).toBe(false);
  });

  it('decode from hostile headers to null or to the well-formed options only', () => {
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64');
    expect(decodePaymentRequired(undefined)).toBeNull();
    expect(decodePaymentRequired(b64('{not json'))).toBeNull();
    expect(decodePaymentRequired(b64({ accepts: 'no' }))).toBeNull();
    const mixed = decodePaymentRequired(
      b64({ x402Version: 2, error: 'x', accepts: [SOLANA, { ...SOLANA, amount: -1 }, { ...SOLANA, maxTimeoutSeconds: 'soon' }, null] }),
    );
    expect(mixed?.accepts).toEqual([SOLANA]);
    expect(decodePaymentResponse(b64({ success: 'yes' }))).toBeNull();
    expect(decodePaymentResponse(b64({ success: true, transaction: 5, extra: { settlement: 'submitted' } }))).toEqual({
      success: true,
      transaction: '',
      network: '',
      extra: { settlement: 'submitted' },
    });
  });
});

describe('the spend ledger', () => {
  it('holds a price while in flight, counts it once charged, gives it back when not', () => {
    const ledger = createSpendLedger({ perCallUnits: 5000n, totalUnits: 10_000n });
    const a = ledger.hold(4000n);
    const b = ledger.hold(4000n);
    expect(a.ok && b.ok).toBe(true);
    expect(ledger.hold(4000n)).toMatchObject({ ok: false, reason: 'spend_limit' });
    if (a.ok) a.release(true);
    if (b.ok) {
      b.release(false);
      b.release(true);
    }
    expect(ledger.totals()).toEqual({ chargedUnits: 4000n, depositedUnits: 0n, heldUnits: 0n });
    expect(ledger.hold(6000n)).toMatchObject({ ok: false, reason: 'price_above_limit' });
    expect(ledger.hold(5000n).ok).toBe(true);
  });

  it('bounds a deposit by 5x the per-call limit unless told', () => {
    expect(createSpendLedger({}).depositCap).toBe(5_000_000n);
    expect(createSpendLedger({ perCallUnits: 1000n }).depositCap).toBe(5000n);
    const ledger = createSpendLedger({ depositUnits: 100n });
    expect(ledger.checkDeposit(100n)).toBeNull();
    expect(ledger.checkDeposit(101n)).toMatchObject({ reason: 'deposit_above_limit' });
  });
});
