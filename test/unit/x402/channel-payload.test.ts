/**
 * The batch-settlement payload reader: every payload type read, and every malformed field refused
 * with the scheme's reason for its type (never thrown).
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL_REASONS, parseChannelPayload } from '../../../src/x402/channels/channel-payload.ts';
import { oneAddressChannelConfig } from '../../helpers/channel-config.ts';

const ADDRESS = '0x1111111111111111111111111111111111111111';
const config = oneAddressChannelConfig(ADDRESS);
const voucher = { channelId: `0x${'AB'.repeat(32)}`, maxClaimableAmount: '3000', signature: `0x${'12'.repeat(65)}` };

describe('parseChannelPayload', () => {
  it('reads a voucher, a deposit and a refund (channel ids lowercased)', () => {
    const v = parseChannelPayload({ type: 'voucher', channelConfig: config, voucher });
    expect(v).toMatchObject({ ok: true, payload: { type: 'voucher', voucher: { channelId: `0x${'ab'.repeat(32)}` } } });
    const d = parseChannelPayload({
      type: 'deposit',
      channelConfig: config,
      voucher,
      deposit: { amount: '100000', authorization: { erc3009Authorization: {} } },
    });
    expect(d).toMatchObject({ ok: true, payload: { type: 'deposit', depositAmount: '100000' } });
    expect(parseChannelPayload({ type: 'refund', channelConfig: config, voucher })).toMatchObject({ ok: true, payload: { type: 'refund', amount: null } });
    expect(parseChannelPayload({ type: 'refund', channelConfig: config, voucher, amount: '5' })).toMatchObject({ ok: true, payload: { amount: '5' } });
  });

  it.each([
    ['no object', null, CHANNEL_REASONS.payloadType],
    ['an unknown type', { type: 'claim', channelConfig: config, voucher }, CHANNEL_REASONS.payloadType],
    ['a bad payer', { type: 'voucher', channelConfig: { ...config, payer: '0x12' }, voucher }, CHANNEL_REASONS.voucherPayload],
    ['a fractional delay', { type: 'voucher', channelConfig: { ...config, withdrawDelay: 1.5 }, voucher }, CHANNEL_REASONS.voucherPayload],
    ['a short salt', { type: 'deposit', channelConfig: { ...config, salt: '0x00' }, voucher }, CHANNEL_REASONS.depositPayload],
    [
      'a channel id of 31 bytes',
      { type: 'voucher', channelConfig: config, voucher: { ...voucher, channelId: `0x${'ab'.repeat(31)}` } },
      CHANNEL_REASONS.voucherPayload,
    ],
    [
      'an amount over uint128',
      { type: 'voucher', channelConfig: config, voucher: { ...voucher, maxClaimableAmount: (1n << 128n).toString() } },
      CHANNEL_REASONS.voucherPayload,
    ],
    ['a leading-zero amount', { type: 'voucher', channelConfig: config, voucher: { ...voucher, maxClaimableAmount: '0100' } }, CHANNEL_REASONS.voucherPayload],
    ['an odd-length signature', { type: 'voucher', channelConfig: config, voucher: { ...voucher, signature: '0x123' } }, CHANNEL_REASONS.voucherPayload],
    [
      'a huge signature',
      { type: 'voucher', channelConfig: config, voucher: { ...voucher, signature: `0x${'ab'.repeat(3000)}` } },
      CHANNEL_REASONS.voucherPayload,
    ],
    ['a deposit of 0', { type: 'deposit', channelConfig: config, voucher, deposit: { amount: '0', authorization: {} } }, CHANNEL_REASONS.depositPayload],
    ['a deposit without authorization', { type: 'deposit', channelConfig: config, voucher, deposit: { amount: '10' } }, CHANNEL_REASONS.depositPayload],
    ['a refund of 0', { type: 'refund', channelConfig: config, voucher, amount: '0' }, CHANNEL_REASONS.refundAmountInvalid],
    ['a numeric refund amount', { type: 'refund', channelConfig: config, voucher, amount: 5 }, CHANNEL_REASONS.refundAmountInvalid],
  ])('refuses %s', (_what, payload, reason) => {
    const parsed = parseChannelPayload(payload);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toBe(reason);
  });
});
