/**
 * Piscina entry of the one worker pool: thin task functions over pure code in src/. The identity
 * seed arrives once, in workerData at pool creation; it is never part of a task and never logged.
 * Tasks take and return plain data only (errors thrown here cross the thread as plain Errors).
 *
 * Every value this module exports is a task: its exports are the pool's task table (`PoolTasks`),
 * so a task's name and types are declared once, here.
 *
 * Warm-up: a worker loads this module, and with it the code of the ed25519, holder, curve and
 * percentile tasks, before Piscina hands it a task (the pool keeps one worker from its start). The
 * EVM tasks' code (viem: about 0.3 s of CPU built, 1 s from TypeScript sources) is loaded by the
 * first EVM task the worker runs, once: a worker that only signs and verifies ed25519 never loads it.
 */
import { workerData } from 'node:worker_threads';
import { createEd25519Signer, verifyEd25519Batch as verifyBatch, verifyEd25519Few as verifyFew, type Ed25519Check } from '../src/chain/keys/ed25519.ts';
import type { VoucherCheck, VoucherToRecover } from '../src/chain/evm/evm-channel-typed-data.ts';
import type { EvmVerifyInput } from '../src/x402/exact-evm/evm-verify.ts';
import type { VerifyResult } from '../src/x402/types/scheme-facilitator.ts';
import { computePercentiles, type PercentilesInput, type PercentilesOutput } from '../src/caches/percentiles.ts';
import { slippageCurve as curveOf, type CurveInputPoint, type CurveOutput } from '../src/intel/market/market-math.ts';
import { bucketHolders as bucketHolderAccounts, type BucketHoldersInput, type HolderDistribution } from '../src/intel/token/holder-buckets.ts';
import { createBatchTask } from '../src/pool/task-batch.ts';

const data = workerData as { identitySeed?: Uint8Array } | undefined;
const signWithIdentity = data?.identitySeed ? createEd25519Signer(data.identitySeed) : null;

/** Task `verifyEd25519Batch`: one boolean per check. */
export function verifyEd25519Batch(input: { readonly checks: readonly Ed25519Check[] }): boolean[] {
  return verifyBatch(input.checks);
}

/** Task `verifyEd25519Few`: a payment's payer signatures (at most two), which the event loop also runs while the pool idles. */
export function verifyEd25519Few(input: { readonly checks: readonly Ed25519Check[] }): boolean[] {
  return verifyFew(input.checks);
}

/** Task `signEd25519`: the identity's detached signature over `message`. */
export function signEd25519(input: { readonly message: Uint8Array }): Uint8Array {
  if (!signWithIdentity) throw new Error('the pool was created without an identity');
  return signWithIdentity(input.message);
}

/** The EVM tasks' modules, loaded once by the first task that needs them (see the warm-up above). */
let evmModules: Promise<readonly [typeof import('../src/x402/exact-evm/evm-verify.ts'), typeof import('../src/chain/evm/evm-channel-typed-data.ts')]> | null =
  null;
const loadEvm = () => {
  evmModules ??= Promise.all([import('../src/x402/exact-evm/evm-verify.ts'), import('../src/chain/evm/evm-channel-typed-data.ts')]);
  return evmModules;
};

/** Task `verifyEvmExact`: the off-chain half of Base exact verification (EIP-712 recovery is CPU work). */
export async function verifyEvmExact(input: EvmVerifyInput): Promise<VerifyResult> {
  const [verify] = await loadEvm();
  return verify.verifyEvmExactOffchain(input);
}

/** Task `recoverVoucher`: a payment channel voucher's channel id and signer (EIP-712 recovery is CPU work). */
export async function recoverVoucher(input: VoucherToRecover): Promise<VoucherCheck> {
  const [, typedData] = await loadEvm();
  return typedData.recoverVoucherSigner(input);
}

/** Task `bucketHolders`: shares, top-N concentration, buckets and labels of a mint's largest accounts. */
export function bucketHolders(input: BucketHoldersInput): HolderDistribution {
  return bucketHolderAccounts(input);
}

/** Task `slippageCurve`: impact, band and rate drop per quoted size, depth under 1 % and 5 %. */
export function slippageCurve(input: { readonly points: readonly CurveInputPoint[] }): CurveOutput {
  return curveOf(input);
}

/** Task `timingPercentiles`: nearest-rank percentiles of a large fee or tip sample. */
export function timingPercentiles(input: PercentilesInput): PercentilesOutput {
  return computePercentiles(input);
}

/**
 * Task `runBatch`: tasks of this table requested in one round of the main event loop, sent as one
 * message (src/pool/task-batch.ts); each settles with its own outcome. The pool sends it, callers do not.
 */
export const runBatch = createBatchTask({
  verifyEd25519Batch,
  verifyEd25519Few,
  signEd25519,
  verifyEvmExact,
  recoverVoucher,
  bucketHolders,
  slippageCurve,
  timingPercentiles,
});

/** The task table of this entry: what `createWorkerPool<PoolTasks>` runs by name. */
export type PoolTasks = typeof import('./pool-worker.ts');
