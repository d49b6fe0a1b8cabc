/**
 * Our channel EIP-712 code against the official SDK's: the canonical addresses and bounds, the
 * channel id of a config, and the signer of a voucher the official client signed; a wrong id,
 * a high-s twin and a wrong ceiling are refused or recover someone else; the receiver authorizer's
 * claim batch signature made natively is the SDK's (viem's `signTypedData` of its `ClaimBatch`).
 */
import * as sdk from '@x402/evm';
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import fc from 'fast-check';
import { hashTypedData } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  BATCH_SETTLEMENT_ADDRESS,
  channelIdOf,
  claimBatchDigest,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  recoverVoucherSigner,
  signClaimBatchNative,
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

  const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  const UINT128 = (1n << 128n) - 1n;
  const rowArb = fc.record({
    payer: hexOf(20),
    receiver: hexOf(20),
    withdrawDelay: fc.integer({ min: 0, max: 2 ** 40 - 1 }),
    salt: hexOf(32),
    maxClaimableAmount: fc.bigInt({ min: 0n, max: UINT128 }),
    totalClaimed: fc.bigInt({ min: 0n, max: UINT128 }),
  });

  it("signs a claim batch natively to the SDK's bytes (viem's signTypedData of its ClaimBatch), for 0 to 6 rows", async () => {
    const key = generateEvmKey();
    const authorizer = evmAccountFromKey(key);
    const secret = Buffer.from(key.slice(2), 'hex');
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { maxLength: 6 }), fc.constantFrom(8453, 84532), async (rows, chainId) => {
        const claims = rows.map((r) => ({
          voucher: {
            channel: {
              ...config,
              payer: r.payer,
              payerAuthorizer: r.payer,
              receiver: r.receiver,
              receiverAuthorizer: authorizer.address,
              withdrawDelay: r.withdrawDelay,
              salt: r.salt,
            },
            maxClaimableAmount: String(r.maxClaimableAmount),
          },
          totalClaimed: String(r.totalClaimed),
        }));
        const typed = {
          domain: { ...sdk.BATCH_SETTLEMENT_DOMAIN, chainId, verifyingContract: sdk.BATCH_SETTLEMENT_ADDRESS },
          types: sdk.claimBatchTypes,
          primaryType: 'ClaimBatch',
          message: {
            claims: claims.map((c) => ({
              channelId: computeChannelId(c.voucher.channel as sdk.ChannelConfig, chainId),
              maxClaimableAmount: BigInt(c.voucher.maxClaimableAmount),
              totalClaimed: BigInt(c.totalClaimed),
            })),
          },
        } as const;
        expect(`0x${claimBatchDigest(claims, chainId).toString('hex')}`).toBe(hashTypedData(typed));
        expect(await signClaimBatchNative(claims, chainId, secret)).toBe(await authorizer.signTypedData(typed));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses to hash a claim row over uint128 or with a malformed channel', () => {
    const row = { voucher: { channel: config, maxClaimableAmount: '5' }, totalClaimed: '4' };
    expect(() => claimBatchDigest([{ ...row, totalClaimed: String(1n << 128n) }], 8453)).toThrow(/uint128/);
    expect(() => claimBatchDigest([{ ...row, voucher: { ...row.voucher, maxClaimableAmount: String(1n << 128n) } }], 8453)).toThrow(/uint128/);
    expect(() => claimBatchDigest([{ ...row, voucher: { ...row.voucher, channel: { ...config, salt: '0x07' } } }], 8453)).toThrow();
  });
});
