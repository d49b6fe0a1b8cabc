/**
 * Our channel EIP-712 code against the official SDK's: the canonical addresses and bounds, the
 * channel id of a config, and the signer of a voucher the official client signed; a wrong id,
 * a high-s twin and a wrong ceiling are refused or recover someone else.
 */
import * as sdk from '@x402/evm';
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { describe, expect, it } from 'vitest';
import {
  BATCH_SETTLEMENT_ADDRESS,
  channelIdOf,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  recoverVoucherSigner,
} from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { NATIVE_SECP256K1 } from '../../../src/chain/evm/secp256k1-recover.ts';

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('channel typed data', () => {
  const payer = evmAccountFromKey(generateEvmKey());
  const config = {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver: evmAccountFromKey(generateEvmKey()).address,
    receiverAuthorizer: evmAccountFromKey(generateEvmKey()).address,
    token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    withdrawDelay: 86400,
    salt: `0x${'07'.repeat(32)}`,
  } as const;

  it('names the addresses the SDK uses', () => {
    expect(BATCH_SETTLEMENT_ADDRESS).toBe(sdk.BATCH_SETTLEMENT_ADDRESS);
    expect(ERC3009_DEPOSIT_COLLECTOR_ADDRESS).toBe(sdk.ERC3009_DEPOSIT_COLLECTOR_ADDRESS);
  });

  it('recovers with libsecp256k1 on this machine', () => {
    expect(NATIVE_SECP256K1).toBe(true);
  });

  it("computes the SDK's channel id on Base and on another chain", () => {
    expect(channelIdOf(config, 8453)).toBe(computeChannelId(config, 'eip155:8453').toLowerCase());
    expect(channelIdOf(config, 84532)).toBe(computeChannelId(config, 'eip155:84532').toLowerCase());
  });

  it('recovers the signer of an official voucher, and refuses a wrong id or a high-s twin', async () => {
    const channelId = computeChannelId(config, 'eip155:8453');
    const v = await signVoucher(payer, channelId, '5000', 'eip155:8453');
    const input = { config, chainId: 8453, channelId, maxClaimableAmount: '5000', signature: v.signature };
    expect(await recoverVoucherSigner(input)).toEqual({ ok: true, signer: payer.address.toLowerCase() });
    const other = await recoverVoucherSigner({ ...input, maxClaimableAmount: '6000' });
    expect(other.ok && other.signer !== payer.address.toLowerCase()).toBe(true);
    expect(await recoverVoucherSigner({ ...input, channelId: `0x${'00'.repeat(32)}` })).toEqual({ ok: false, reason: 'channel_id_mismatch' });
    const s = BigInt(`0x${v.signature.slice(66, 130)}`);
    const v8 = Number.parseInt(v.signature.slice(130), 16);
    const twin = `${v.signature.slice(0, 66)}${(CURVE_ORDER - s).toString(16).padStart(64, '0')}${(v8 === 27 ? 28 : 27).toString(16)}`;
    expect(await recoverVoucherSigner({ ...input, signature: twin })).toEqual({ ok: false, reason: 'voucher_signature' });
  });

  it('refuses the same signature with its recovery byte written 0 or 1: the contract takes only 27 and 28, so it could never be claimed', async () => {
    const channelId = computeChannelId(config, 'eip155:8453');
    const v = await signVoucher(payer, channelId, '5000', 'eip155:8453');
    const v8 = Number.parseInt(v.signature.slice(130), 16);
    const bare = `${v.signature.slice(0, 130)}0${v8 - 27}`;
    const input = { config, chainId: 8453, channelId, maxClaimableAmount: '5000', signature: bare };
    expect(await recoverVoucherSigner(input)).toEqual({ ok: false, reason: 'voucher_signature' });
  });
});
