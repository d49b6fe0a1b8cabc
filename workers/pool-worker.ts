/**
 * Piscina entry of the one worker pool: thin task functions over pure code in src/. The identity
 * seed arrives once, in workerData at pool creation; it is never part of a task and never logged.
 * Tasks take and return plain data only (errors thrown here cross the thread as plain Errors).
 */
import { workerData } from 'node:worker_threads';
import { createEd25519Signer, verifyEd25519Batch as verifyBatch, type Ed25519Check } from '../src/trust/ed25519.ts';
import { verifyEvmExactOffchain, type EvmVerifyInput } from '../src/x402/evm-verify.ts';
import type { VerifyResult } from '../src/x402/exact-scheme.ts';

const data = workerData as { identitySeed?: Uint8Array } | undefined;
const signWithIdentity = data?.identitySeed ? createEd25519Signer(data.identitySeed) : null;

/** Task `verifyEd25519Batch`: one boolean per check. */
export function verifyEd25519Batch(input: { readonly checks: readonly Ed25519Check[] }): boolean[] {
  return verifyBatch(input.checks);
}

/** Task `signEd25519`: the identity's detached signature over `message`. */
export function signEd25519(input: { readonly message: Uint8Array }): Uint8Array {
  if (!signWithIdentity) throw new Error('the pool was created without an identity');
  return signWithIdentity(input.message);
}

/** Task `verifyEvmExact`: the off-chain half of Base exact verification (EIP-712 recovery is CPU work). */
export function verifyEvmExact(input: EvmVerifyInput): Promise<VerifyResult> {
  return verifyEvmExactOffchain(input);
}
