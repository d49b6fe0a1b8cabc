/**
 * A channel's voucher signer for the payer's hot path: the EIP-712 digest's fixed parts (the
 * `Voucher` type hash, the channel id, the domain separator) laid out once per channel, so a
 * voucher writes only its ceiling into a kept buffer and hashes twice (one absorb each) before
 * libsecp256k1 signs. The same digest as `voucherDigest` and the same signature bytes as
 * `signVoucherNative` and the official `signVoucher` (unit tests hold all three equal).
 */
import { domainSeparatorOf, hexWord, typeHashOf } from './eip712-static.ts';
import { BATCH_SETTLEMENT_ADDRESS, signVoucherNative } from './evm-channel-typed-data.ts';
import { keccak256 } from './keccak-256.ts';
import { signDigestNative } from './secp256k1-recover.ts';

const VOUCHER_TYPEHASH = typeHashOf('Voucher(bytes32 channelId,uint128 maxClaimableAmount)');
const UINT64_MASK = (1n << 64n) - 1n;
const UINT128_MAX = (1n << 128n) - 1n;

/** Signs the payer's vouchers of one channel: the ceiling in, the 0x hex r||s||v signature out. */
export type VoucherSigner = (maxClaimableAmount: bigint) => Promise<`0x${string}`>;

/** The signer of `channelId`'s vouchers on `chainId` with `secretKey` (32 bytes; kept by reference). */
export function createVoucherSigner(channelId: string, chainId: number, secretKey: Uint8Array): VoucherSigner {
  // hashStruct(Voucher) = keccak(typeHash || channelId || uint256(ceiling)); the digest = keccak(0x1901 || separator || hashStruct).
  const struct = Buffer.alloc(96);
  VOUCHER_TYPEHASH.copy(struct, 0);
  hexWord(channelId, 32).copy(struct, 32);
  const digest = Buffer.alloc(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  domainSeparatorOf({ name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS }).copy(digest, 2);
  return async (ceiling) => {
    if (ceiling < 0n || ceiling > UINT128_MAX) throw new Error('maxClaimableAmount is not a uint128');
    // A uint128 fills the word's low 16 bytes; the high 16 stay zero from the allocation.
    struct.writeBigUInt64BE(ceiling >> 64n, 80);
    struct.writeBigUInt64BE(ceiling & UINT64_MASK, 88);
    keccak256(struct).copy(digest, 34);
    const signature = signDigestNative(keccak256(digest), secretKey);
    return signature ? `0x${signature.toString('hex')}` : signVoucherNative(channelId, ceiling, chainId, secretKey);
  };
}
