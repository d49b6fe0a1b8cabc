/**
 * Which secp256k1 recovers a channel voucher's signer (issue 18): the native libsecp256k1 binding
 * from the registry (`secp256k1`, what the service uses, src/chain/evm/secp256k1-recover.ts) against
 * the pure-JS recovery (viem over @noble/curves), on the same vouchers in the same run, both from
 * the voucher's EIP-712 digest. Also timed: the whole check the pool task runs (channel id, digest,
 * recovery) and the task through the pool with its thread hop, so the share of each is visible.
 *
 *   npm run bench -- voucher-recovery
 */
import { Bench } from 'tinybench';
import { hashTypedData, recoverAddress } from 'viem';
import { batchSettlementDomain, recoverVoucherSigner, type ChannelConfig, type VoucherToRecover } from '../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAccountFromKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { NATIVE_SECP256K1, recoverSignerAddress } from '../../src/chain/evm/secp256k1-recover.ts';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

const VOUCHERS = 64;
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

async function vouchers(): Promise<{ input: VoucherToRecover; digest: `0x${string}`; signer: string }[]> {
  const account = evmAccountFromKey(generateEvmKey());
  const config: ChannelConfig = {
    payer: account.address,
    payerAuthorizer: account.address,
    receiver: account.address,
    receiverAuthorizer: account.address,
    token: account.address,
    withdrawDelay: 86400,
    salt: `0x${'00'.repeat(32)}`,
  };
  const { channelIdOf } = await import('../../src/chain/evm/evm-channel-typed-data.ts');
  const channelId = channelIdOf(config, 8453) as `0x${string}`;
  const types = {
    Voucher: [
      { name: 'channelId', type: 'bytes32' },
      { name: 'maxClaimableAmount', type: 'uint128' },
    ],
  } as const;
  return Promise.all(
    Array.from({ length: VOUCHERS }, async (_, i) => {
      const message = { channelId, maxClaimableAmount: BigInt((i + 1) * 1000) };
      const typed = { domain: batchSettlementDomain(8453), types, primaryType: 'Voucher' as const, message };
      const signature = await account.signTypedData(typed);
      const input = { config, chainId: 8453, channelId, maxClaimableAmount: String((i + 1) * 1000), signature };
      return { input, digest: hashTypedData(typed), signer: account.address };
    }),
  );
}

const nativeRecover = (digest: `0x${string}`, signature: string) =>
  recoverSignerAddress(Buffer.from(digest.slice(2), 'hex'), Buffer.from(signature.slice(2), 'hex'));

/** Runs the comparison; the pool is sized 1 so its figure is one hop and one recovery. */
export async function benchVoucherRecovery(): Promise<Record<string, unknown>> {
  if (!NATIVE_SECP256K1) throw new Error('the native secp256k1 binding did not load on this machine');
  const set = await vouchers();
  for (const v of set) {
    if ((await nativeRecover(v.digest, v.input.signature)) !== v.signer.toLowerCase()) throw new Error('native recovery disagrees');
  }
  const pool = createWorkerPool<PoolTasks>({ size: 1 });
  let i = 0;
  const next = () => set[i++ % set.length]!;
  const bench = new Bench({ time: 1500, warmupTime: 300 });
  bench
    .add('native digest recovery', async () => {
      const v = next();
      await nativeRecover(v.digest, v.input.signature);
    })
    .add('pure-JS digest recovery', async () => {
      const v = next();
      await recoverAddress({ hash: v.digest, signature: v.input.signature as `0x${string}` });
    })
    .add('voucher check (task body: id, digest, native recovery)', async () => void (await recoverVoucherSigner(next().input)))
    .add('pool task recoverVoucher', async () => void (await pool.runTask('recoverVoucher', next().input, AbortSignal.timeout(5000))));
  await bench.run();
  await pool.close();
  const us = Object.fromEntries(bench.tasks.map((t) => [t.name, round((t.result as { latency: { mean: number } }).latency.mean * 1000)]));
  const nativeUs = us['native digest recovery'] as number;
  return {
    name: 'voucher-recovery',
    meanUs: us,
    pureJsVsNative: round((us['pure-JS digest recovery'] as number) / nativeUs),
    poolTaskVsNative: round((us['pool task recoverVoucher'] as number) / nativeUs),
  };
}
