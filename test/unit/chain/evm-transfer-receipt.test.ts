import { describe, expect, it } from 'vitest';
import { judgeTransferReceipt, type TokenLog } from '../../../src/chain/evm/evm-transfer-receipt.ts';
import { EVM_REASONS } from '../../../src/x402/exact-evm/evm-reasons.ts';
import { pendingStatusOf } from '../../../src/x402/exact-evm/evm-settler.ts';

const asset = '0x00000000000000000000000000000000000000aa';
const from = '0x00000000000000000000000000000000000000F1';
const to = '0x00000000000000000000000000000000000000b2';
const nonce = `0x${'11'.repeat(32)}`;
const expected = { asset, from, to, value: 1000n, nonce };
const used: TokenLog = { address: asset, eventName: 'AuthorizationUsed', args: { authorizer: from.toLowerCase(), nonce } };
const moved: TokenLog = { address: asset.toUpperCase().replace('0X', '0x'), eventName: 'Transfer', args: { from, to, value: 1000n } };

describe('judgeTransferReceipt', () => {
  it('accepts a successful receipt with both logs from the token', () => {
    expect(judgeTransferReceipt('0xh', true, [used, moved], expected)).toEqual({ ok: true });
  });
  it('refuses a reverted transaction whatever its logs', () => {
    expect(judgeTransferReceipt('0xh', false, [used, moved], expected)).toMatchObject({ ok: false, status: 'reverted' });
  });
  it('refuses a receipt without AuthorizationUsed for this nonce (a cancelled nonce has AuthorizationCanceled)', () => {
    const other = { ...used, args: { ...used.args, nonce: `0x${'22'.repeat(32)}` } };
    expect(judgeTransferReceipt('0xh', true, [other, moved], expected)).toMatchObject({ ok: false, status: 'transfer_mismatch' });
    expect(judgeTransferReceipt('0xh', true, [moved], expected)).toMatchObject({ ok: false, status: 'transfer_mismatch' });
  });
  it('refuses a Transfer to someone else, of another value, or logged by another contract', () => {
    expect(judgeTransferReceipt('0xh', true, [used, { ...moved, args: { ...moved.args, to: from } }], expected).ok).toBe(false);
    expect(judgeTransferReceipt('0xh', true, [used, { ...moved, args: { ...moved.args, value: 999n } }], expected).ok).toBe(false);
    const fake = `0x${'cc'.repeat(20)}`;
    expect(
      judgeTransferReceipt(
        '0xh',
        true,
        [
          { ...used, address: fake },
          { ...moved, address: fake },
        ],
        expected,
      ).ok,
    ).toBe(false);
  });
});

describe('pendingStatusOf', () => {
  it('landed only on our receipt proving the payment', () => {
    expect(pendingStatusOf({ kind: 'found', ok: true }, true, false)).toEqual({ status: 'landed' });
  });
  it('a nonce used while our transaction has no receipt is a failed payment, not a landed one', () => {
    expect(pendingStatusOf({ kind: 'none' }, true, false)).toMatchObject({ status: 'failed', reason: EVM_REASONS.nonceAlreadyUsed });
  });
  it('our receipt reverted or without the logs: failed', () => {
    expect(pendingStatusOf({ kind: 'found', ok: false, status: 'reverted', message: 'x' }, true, false)).toMatchObject({
      reason: EVM_REASONS.transactionFailed,
    });
    expect(pendingStatusOf({ kind: 'found', ok: false, status: 'transfer_mismatch', message: 'x' }, true, false)).toMatchObject({
      reason: EVM_REASONS.transferEventMismatch,
    });
  });
  it('no receipt and an unused nonce: pending until the authorization expires; unreadable stays pending', () => {
    expect(pendingStatusOf({ kind: 'none' }, false, false).status).toBe('pending');
    expect(pendingStatusOf({ kind: 'none' }, false, true)).toMatchObject({ status: 'failed', reason: EVM_REASONS.validBeforeExpired });
    expect(pendingStatusOf({ kind: 'unreadable', message: 'down' }, true, true).status).toBe('pending');
  });
});
