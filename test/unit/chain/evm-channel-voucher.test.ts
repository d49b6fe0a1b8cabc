/**
 * Voucher signer recovery (src/chain/evm/evm-channel-typed-data.ts) against viem's own recovery and
 * the official client's `signVoucher`: the same signer for every voucher, both spellings of v, a
 * flipped v or a changed amount naming someone else, a high-s or malformed signature refused.
 */
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { hashTypedData, recoverTypedDataAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { batchSettlementDomain, type ChannelConfig, recoverVoucherSigner } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';

const CHAIN_ID = 8453;
const N = 2n ** 256n - 0x14551231950b75fc4402da1732fc9bebfn;
const VOUCHER_TYPES = {
  Voucher: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
  ],
} as const;

function configOf(payer: string): ChannelConfig {
  const other = evmAddressOfKey(generateEvmKey());
  return { payer, payerAuthorizer: payer, receiver: other, receiverAuthorizer: other, token: other, withdrawDelay: 86400, salt: `0x${'ab'.repeat(32)}` };
}

async function signed(amount: bigint) {
  const key = generateEvmKey();
  const config = configOf(evmAddressOfKey(key));
  const channelId = computeChannelId(config as Parameters<typeof computeChannelId>[0], `eip155:${CHAIN_ID}`);
  const voucher = await signVoucher(evmAccountFromKey(key), channelId, amount.toString(), `eip155:${CHAIN_ID}`);
  const input = { config, chainId: CHAIN_ID, channelId, maxClaimableAmount: amount.toString(), signature: voucher.signature };
  return { key, address: evmAddressOfKey(key), input };
}

const withV = (signature: string, v: number) => `${signature.slice(0, 130)}${v.toString(16).padStart(2, '0')}`;

describe('voucher signer recovery', () => {
  it('names the signer of the official client, as viem recovers it, for many keys and amounts', async () => {
    for (let i = 0; i < 25; i++) {
      const amount = BigInt(i) * 1_000_003n + 1n;
      const { address, input } = await signed(amount);
      const check = await recoverVoucherSigner(input);
      const viem = await recoverTypedDataAddress({
        domain: batchSettlementDomain(CHAIN_ID),
        types: VOUCHER_TYPES,
        primaryType: 'Voucher',
        message: { channelId: input.channelId as `0x${string}`, maxClaimableAmount: amount },
        signature: input.signature as `0x${string}`,
      });
      expect(check).toEqual({ ok: true, signer: viem.toLowerCase() });
      expect(viem.toLowerCase()).toBe(address.toLowerCase());
    }
  });

  it('reads v as 27/28 only (the bare 0/1, which the contract refuses at the claim, is refused); a flipped v or another amount names someone else', async () => {
    const { address, input } = await signed(5000n);
    const v = Number.parseInt(input.signature.slice(130), 16);
    expect(await recoverVoucherSigner(input)).toEqual({ ok: true, signer: expect.stringMatching(new RegExp(address, 'i')) });
    const asBit = withV(input.signature, v - 27);
    expect(await recoverVoucherSigner({ ...input, signature: asBit })).toEqual({ ok: false, reason: 'voucher_signature' });
    const flipped = await recoverVoucherSigner({ ...input, signature: withV(input.signature, v === 27 ? 28 : 27) });
    expect(flipped.ok && flipped.signer.toLowerCase()).not.toBe(address.toLowerCase());
    const other = await recoverVoucherSigner({ ...input, maxClaimableAmount: '5001' });
    expect(other.ok && other.signer.toLowerCase()).not.toBe(address.toLowerCase());
  });

  it('refuses a high-s twin, a wrong v byte, a short signature and a channel id not of the config', async () => {
    const { input } = await signed(7000n);
    const s = BigInt(`0x${input.signature.slice(66, 130)}`);
    const v = Number.parseInt(input.signature.slice(130), 16);
    const highS = `${input.signature.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(await recoverVoucherSigner({ ...input, signature: highS })).toEqual({ ok: false, reason: 'voucher_signature' });
    expect(await recoverVoucherSigner({ ...input, signature: withV(input.signature, 29) })).toEqual({ ok: false, reason: 'voucher_signature' });
    expect(await recoverVoucherSigner({ ...input, signature: input.signature.slice(0, 128) })).toEqual({ ok: false, reason: 'voucher_signature' });
    expect(await recoverVoucherSigner({ ...input, channelId: `0x${'00'.repeat(32)}` })).toEqual({ ok: false, reason: 'channel_id_mismatch' });
  });
});
