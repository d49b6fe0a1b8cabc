/**
 * The pool's short tasks as the main thread runs them while the pool idles (`inlineWhenIdle` of
 * src/pool/worker-pool.ts): the same pure functions the worker entry (pool-worker.ts) runs, so a
 * task's answer does not depend on where it ran. Only tasks measured at about a tenth of a
 * millisecond or less belong here: a receipt's or a co-signature's ed25519 signature (node:crypto),
 * a Solana payment's payer signatures (one or two ed25519 checks, about 0.13 ms each), and the EIP-712 recovery of a payment channel voucher or of an `exact` Base authorization (native
 * Keccak and libsecp256k1: 0.1-0.16 ms each, where the EIP-3009 check took 4.7 ms in JavaScript).
 */
import { recoverVoucherSigner } from '../src/chain/evm/evm-channel-typed-data.ts';
import type { InlineTasks } from '../src/pool/worker-pool.ts';
import { verifyEvmExactOffchain } from '../src/x402/exact-evm/evm-verify.ts';
import { createEd25519Signer, verifyEd25519Few } from '../src/chain/keys/ed25519.ts';
import type { PoolTasks } from './pool-worker.ts';

/** The inline tasks, signing with the identity whose 32-byte seed the workers also get. Never logged. */
export function inlinePoolTasks(identitySeed: Uint8Array): InlineTasks<PoolTasks> {
  const sign = createEd25519Signer(identitySeed);
  return {
    signEd25519: ({ message }) => sign(message),
    verifyEd25519Few: ({ checks }) => verifyEd25519Few(checks),
    recoverVoucher: recoverVoucherSigner,
    verifyEvmExact: verifyEvmExactOffchain,
  };
}
