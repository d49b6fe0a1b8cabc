/**
 * The signatures of a Solana exact payment, each checked or made in the worker pool: the payer's
 * (every signer but the fee payer must have signed the message) and our fee payer's co-signature.
 */
import { decodeBase58 } from '../../chain/solana/base58.ts';
import { isEmptySignature, type WireTransaction } from '../../chain/solana/svm-wire.ts';
import { ownBytes } from '../../pool/own-bytes.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import { ED25519_FEW_CHECKS, type Ed25519Check } from '../../chain/keys/ed25519.ts';
import type { PaymentPayload } from '../types/x402-types.ts';

/** The pool tasks the Solana scheme runs: the payer's signature check and the fee payer's co-signature. */
export interface SvmPoolTasks {
  verifyEd25519Batch(input: { readonly checks: readonly Ed25519Check[] }): boolean[];
  verifyEd25519Few(input: { readonly checks: readonly Ed25519Check[] }): boolean[];
  signEd25519(input: { readonly message: Uint8Array }): Uint8Array;
}

/** The two signature steps over `pool`. */
export function createSvmSignatures(pool: TaskRunner<SvmPoolTasks>) {
  const cosigned = new WeakMap<PaymentPayload, Promise<Uint8Array>>();
  return {
    /**
     * Our fee payer's signature of the payment's message, made once per payment: verification
     * starts it beside its own checks, settlement awaits it. Signing is deterministic and the
     * signed transaction never leaves this process unless settlement broadcasts it, so one made for
     * a payment that is then refused is dropped with the payment.
     */
    cosign(payment: PaymentPayload, tx: WireTransaction, signal: AbortSignal): Promise<Uint8Array> {
      let signing = cosigned.get(payment);
      if (!signing) {
        // The message is a view into the whole transaction's bytes (own-bytes.ts): its own bytes cross.
        signing = pool.runTask('signEd25519', { message: ownBytes(tx.messageBytes) }, signal);
        // A refused payment never awaits it: its failure (the caller left) is not an unhandled one.
        signing.catch(() => undefined);
        cosigned.set(payment, signing);
      }
      return signing;
    },
    /** Every signer but the fee payer (slot 0) must have signed the message. */
    async signaturesValid(tx: WireTransaction, signal: AbortSignal): Promise<boolean> {
      const checks = [];
      const message = ownBytes(tx.messageBytes);
      for (let i = 1; i < tx.numRequiredSignatures; i++) {
        const signature = tx.signatures[i]!;
        if (isEmptySignature(signature)) return false;
        checks.push({ publicKey: decodeBase58(tx.staticAccounts[i]!)!, message, signature: ownBytes(signature) });
      }
      if (checks.length === 0) return false;
      // A payment has one or two (the rules allow three signers): short enough for the event loop
      // while the pool idles, where a sleeping worker's wake-up cost more than the checks.
      const task = checks.length <= ED25519_FEW_CHECKS ? 'verifyEd25519Few' : 'verifyEd25519Batch';
      const results = await pool.runTask(task, { checks }, signal);
      return results.every(Boolean);
    },
  };
}
