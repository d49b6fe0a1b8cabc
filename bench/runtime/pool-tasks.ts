/**
 * Worker-pool task benchmark (issue 4): each payment task of the pool timed directly on this
 * thread and through the pool with tinybench, in the same run, reported as ratios:
 * - one task at a time (the latency a single paid call pays for the thread hop),
 * - a burst of BURST tasks in flight at once (throughput with every worker busy; direct runs them
 *   one after another on this thread, which is what the event loop would otherwise do).
 * Tasks: verifyEd25519Batch (one Solana payer signature), signEd25519 (fee-payer co-signature /
 * receipt), verifyEvmExact (EIP-712 TransferWithAuthorization recovery).
 *
 *   npm run bench -- pool-tasks
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { Bench } from 'tinybench';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/chain/evm/evm-typed-data.ts';
import { createWorkerPool, type TaskInput, type TaskName, type WorkerPool } from '../../src/pool/worker-pool.ts';
import { createEd25519Signer, verifyEd25519Batch, type Ed25519Check } from '../../src/chain/keys/ed25519.ts';
import { verifyEvmExactOffchain, type EvmVerifyInput } from '../../src/x402/exact-evm/evm-verify.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

/** Tasks in flight at once in the burst measurement. */
const BURST = 64;
const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/** PKCS#8 DER prefix of an ed25519 private key (RFC 8410); the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  // The raw public key is the last 32 bytes of its SPKI DER.
  const der = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

async function evmInput(): Promise<EvmVerifyInput> {
  const key = generateEvmKey();
  const account = evmAccountFromKey(key);
  const payTo = evmAddressOfKey(generateEvmKey());
  const asset = evmAddressOfKey(generateEvmKey());
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: payTo as `0x${string}`,
    value: 10_000n,
    validAfter: 0n,
    validBefore: BigInt(now + 3600),
    nonce: `0x${randomBytes(32).toString('hex')}` as `0x${string}`,
  };
  const signature = await account.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: asset as `0x${string}` },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return {
    payload: { signature, authorization: { ...authorization, value: '10000', validAfter: '0', validBefore: String(now + 3600) } },
    acceptedScheme: 'exact',
    acceptedNetwork: 'eip155:8453',
    nowSeconds: now,
    requirements: { scheme: 'exact', network: 'eip155:8453', amount: '10000', asset, payTo, extra: { name: 'USD Coin', version: '2' } },
  };
}

interface TaskCase<K extends TaskName<PoolTasks>> {
  readonly name: K;
  readonly input: TaskInput<PoolTasks[K]>;
  readonly direct: (input: TaskInput<PoolTasks[K]>) => unknown;
}

/** Medians, not means: the machine is shared, and a few stalls would swamp a mean. */
function stats(bench: Bench, name: string): { p50Us: number; p99Us: number; opsPerSecond: number; samples: number } {
  const r = bench.getTask(name)?.result;
  if (!r || !('latency' in r)) throw new Error(`bench task ${name} has no result`);
  return {
    p50Us: round(r.latency.p50 * 1000, 1),
    p99Us: round(r.latency.p99 * 1000, 1),
    opsPerSecond: Math.round(1000 / r.latency.p50),
    samples: r.latency.samplesCount,
  };
}

async function benchTask<K extends TaskName<PoolTasks>>(pool: WorkerPool<PoolTasks>, c: TaskCase<K>, timeMs: number): Promise<Record<string, unknown>> {
  const bench = new Bench({ time: timeMs, warmupTime: 200 });
  const burst = Array.from({ length: BURST }, () => c.input);
  bench
    .add('direct', async () => {
      await c.direct(c.input);
    })
    .add('pool', async () => {
      await pool.runTask(c.name, c.input);
    })
    .add('direct-burst', async () => {
      for (const i of burst) await c.direct(i);
    })
    .add('pool-burst', async () => {
      await Promise.all(burst.map((i) => pool.runTask(c.name, i)));
    });
  await bench.run();
  const direct = stats(bench, 'direct');
  const viaPool = stats(bench, 'pool');
  const directBurst = stats(bench, 'direct-burst');
  const poolBurst = stats(bench, 'pool-burst');
  return {
    single: { direct, pool: viaPool, poolLatencyOverDirect: round(viaPool.p50Us / direct.p50Us, 2), hopOverheadUs: round(viaPool.p50Us - direct.p50Us, 1) },
    burst: {
      tasks: BURST,
      directTasksPerSecond: directBurst.opsPerSecond * BURST,
      poolTasksPerSecond: poolBurst.opsPerSecond * BURST,
      poolThroughputOverDirect: round(poolBurst.opsPerSecond / directBurst.opsPerSecond, 2),
    },
  };
}

/** Runs the benchmark and returns its report. */
export async function benchPoolTasks(timeMs = 1500): Promise<Record<string, unknown>> {
  const seed = new Uint8Array(randomBytes(32));
  const pool = createWorkerPool<PoolTasks>({ identitySeed: seed });
  const sign = createEd25519Signer(seed);
  const message = new Uint8Array(randomBytes(300));
  const check: Ed25519Check = { publicKey: ed25519PublicKey(seed), message, signature: sign(message) };
  if (!verifyEd25519Batch([check])[0]) throw new Error('bench setup: the ed25519 check does not verify');
  const evm = await evmInput();
  if (!(await verifyEvmExactOffchain(evm)).isValid) throw new Error('bench setup: the EVM payload does not verify');
  try {
    // Warm every worker's module graph before timing.
    await Promise.all(Array.from({ length: pool.size * 2 }, () => pool.runTask('verifyEvmExact', evm)));
    const tasks: Record<string, unknown> = {};
    tasks.verifyEd25519Batch = await benchTask(
      pool,
      { name: 'verifyEd25519Batch', input: { checks: [check] }, direct: (i) => verifyEd25519Batch(i.checks) },
      timeMs,
    );
    tasks.signEd25519 = await benchTask(pool, { name: 'signEd25519', input: { message }, direct: (i) => sign(i.message) }, timeMs);
    tasks.verifyEvmExact = await benchTask(pool, { name: 'verifyEvmExact', input: evm, direct: (i) => verifyEvmExactOffchain(i) }, timeMs);
    return { name: 'pool-tasks', poolSize: pool.size, tasks };
  } finally {
    await pool.close();
  }
}
