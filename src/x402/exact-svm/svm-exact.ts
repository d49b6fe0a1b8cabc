/**
 * The Solana `exact` scheme (ExactScheme) as a facilitator runs it: decode the payer's partially signed transaction,
 * apply the x402 exact-SVM rules, check the payer's signatures in the worker pool, simulate over RPC; settle by
 * co-signing as fee payer in the pool, sending, and waiting for the configured commitment (streamed from Geyser when
 * the service has a signature watch, polled otherwise: svm-confirm.ts). Expected failures are results with x402 reason codes.
 */
import { createHash } from 'node:crypto';
import { associatedTokenAddress } from '../../chain/associated-token.ts';
import { decodeBase58, encodeBase58 } from '../../chain/base58.ts';
import type { RpcClient, RpcCommitment, SendOutcome } from '../../chain/rpc-client.ts';
import type { SignatureWatch } from '../../chain/signature-watch.ts';
import { isEmptySignature, withSignature, type WireTransaction } from '../../chain/svm-wire.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import type { Ed25519Check } from '../../trust/ed25519.ts';
import type { BeforeBroadcast, ExactScheme, OnAccepted, SettleResult, VerifyResult } from '../types/exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';
import type { SettlementFee } from './svm-fee-payer.ts';
import { SVM_REASON } from './svm-reasons.ts';
import { checkSvmPaymentRules, DEFAULT_MAX_PRIORITY_FEE_LAMPORTS, settlementFee, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type SvmRuleTerms } from './svm-rules.ts';
import { confirmSignature, type ConfirmStream } from './svm-confirm.ts';
import { createSvmSettlementStatus } from './svm-settlement-status.ts';
import { decodePayload, svmPayerOf } from './svm-payload.ts';
import { createSourceBudget, type SettlementOutcome, type SourceBudget } from './svm-source-budget.ts';
import { readSourceBalance, sourceBalanceBefore, transferOf } from './svm-source-read.ts';

/** How long settlement waits for the commitment before reporting `settlement_pending`. */
export const SETTLE_CONFIRM_TIMEOUT_MS = 30_000;

/** The pool tasks the Solana scheme runs: the payer's signature check and the fee payer's co-signature. */
export interface SvmPoolTasks {
  verifyEd25519Batch(input: { readonly checks: readonly Ed25519Check[] }): boolean[];
  signEd25519(input: { readonly message: Uint8Array }): Uint8Array;
}

export interface SvmExactConfig {
  readonly network: string;
  /** The service identity (base58): fee payer and co-signer. */
  readonly feePayer: string;
  readonly rpc: RpcClient;
  readonly pool: TaskRunner<SvmPoolTasks>;
  readonly commitment?: RpcCommitment;
  readonly confirmTimeoutMs?: number;
  /** Confirmations from the Geyser stream; without it (or while it is not live) settlement polls the RPC. */
  readonly signatures?: SignatureWatch | null;
  /** Most lamports of priority fee (limit x price) one settlement may cost the fee payer; default one signature's fee. */
  readonly maxPriorityFeeLamports?: number;
  /** Keeps settlements from one token account within its balance; default one of its own. */
  readonly sources?: SourceBudget;
  /** Told the fee of every settlement the node accepted (/health). */
  readonly onFee?: (fee: SettlementFee) => void;
  /** Aborted at the service's close: a confirmation still waited for stops, pending as when time runs out. */
  readonly stopping?: AbortSignal;
}

function isSendOutcome(value: unknown): value is SendOutcome {
  return typeof value === 'object' && value !== null && 'ok' in value;
}

/** The message hash: one message is one payment however many valid signatures exist for it. */
function keyOf(tx: WireTransaction): string {
  return `svm:${createHash('sha256').update(tx.messageBytes).digest('hex')}`;
}

const PAYER_BUSY =
  "this payer's token account is committed, by its settlements in flight, up to the balance read at verification; nothing was signed or sent; retry once they finish";

/** What a settlement did to the payer's tokens, for its reservation. */
function outcomeOf(result: SettleResult): SettlementOutcome {
  if (result.success || result.errorReason === SVM_REASON.duplicateSettlement) return 'spent';
  return result.errorReason === SVM_REASON.settlementPending ? 'unknown' : 'unspent';
}

/** Builds the scheme for one network; derives payTo's token accounts lazily, once per terms. */
export function createSvmExactScheme(config: SvmExactConfig): ExactScheme {
  const commitment = config.commitment ?? 'confirmed';
  const confirmTimeoutMs = config.confirmTimeoutMs ?? SETTLE_CONFIRM_TIMEOUT_MS;
  const feePayerBytes = decodeBase58(config.feePayer);
  if (feePayerBytes?.length !== 32) throw new Error('fee payer must be a base58 32-byte key');
  const destinations = new Map<string, Promise<SvmRuleTerms['destinations']>>();
  const maxPriorityFeeLamports = BigInt(config.maxPriorityFeeLamports ?? DEFAULT_MAX_PRIORITY_FEE_LAMPORTS);
  const sources = config.sources ?? createSourceBudget();

  function destinationsFor(payTo: string, asset: string): Promise<SvmRuleTerms['destinations']> {
    const key = `${payTo}:${asset}`;
    let found = destinations.get(key);
    if (!found) {
      found = Promise.all([associatedTokenAddress(payTo, asset, TOKEN_PROGRAM), associatedTokenAddress(payTo, asset, TOKEN_2022_PROGRAM)]).then(([t, t22]) => ({
        [TOKEN_PROGRAM]: t,
        [TOKEN_2022_PROGRAM]: t22,
      }));
      destinations.set(key, found);
    }
    return found;
  }

  /** Every signer but the fee payer (slot 0) must have signed the message. */
  async function signaturesValid(tx: WireTransaction, signal: AbortSignal): Promise<boolean> {
    const checks = [];
    for (let i = 1; i < tx.numRequiredSignatures; i++) {
      const signature = tx.signatures[i]!;
      if (isEmptySignature(signature)) return false;
      checks.push({ publicKey: decodeBase58(tx.staticAccounts[i]!)!, message: tx.messageBytes, signature });
    }
    if (checks.length === 0) return false;
    const results = await config.pool.runTask('verifyEd25519Batch', { checks }, signal);
    return results.every(Boolean);
  }

  function termsError(payment: PaymentPayload, requirements: PaymentRequirements): string | null {
    if (requirements.scheme !== 'exact' || payment.accepted.scheme !== 'exact') return SVM_REASON.unsupportedScheme;
    if (requirements.network !== config.network || payment.accepted.network !== requirements.network) return SVM_REASON.networkMismatch;
    const feePayer = requirements.extra.feePayer;
    if (typeof feePayer !== 'string' || feePayer === '') return SVM_REASON.missingFeePayer;
    if (feePayer !== config.feePayer) return SVM_REASON.feePayerNotManaged;
    return null;
  }

  async function verify(payment: PaymentPayload, requirements: PaymentRequirements, signal: AbortSignal): Promise<VerifyResult> {
    const termsReason = termsError(payment, requirements);
    if (termsReason) return { isValid: false, invalidReason: termsReason, payer: '' };
    const decoded = decodePayload(payment);
    if (!decoded) return { isValid: false, invalidReason: SVM_REASON.couldNotBeDecoded, payer: '' };
    const { tx, wire } = decoded;
    const amount = BigInt(requirements.amount);
    const rules = checkSvmPaymentRules(tx, {
      asset: requirements.asset,
      amount,
      feePayer: config.feePayer,
      maxPriorityFeeLamports,
      destinations: await destinationsFor(requirements.payTo, requirements.asset),
    });
    if (!rules.ok) return { isValid: false, invalidReason: rules.reason, payer: rules.payer };
    if (!(await signaturesValid(tx, signal))) return { isValid: false, invalidReason: SVM_REASON.signatureInvalid, payer: rules.payer };
    const simulating = performance.now();
    // The source's balance comes back with the simulation: what settlement will reserve against.
    const { source } = rules.transfer;
    const sim = await config.rpc.simulateTransaction(Buffer.from(wire).toString('base64'), signal, [source]);
    const simulateMs = performance.now() - simulating;
    if (!sim.ok)
      return { isValid: false, invalidReason: SVM_REASON.simulationFailed, invalidMessage: sim.message, payer: rules.payer, simulateMs, transient: true };
    if (sim.err !== null)
      return { isValid: false, invalidReason: SVM_REASON.simulationFailed, invalidMessage: JSON.stringify(sim.err), payer: rules.payer, simulateMs };
    const balance = sourceBalanceBefore(sim.accounts?.[0] ?? null, rules.transfer, amount);
    if (balance !== null) sources.noteRead(keyOf(tx), source, balance);
    return { isValid: true, payer: rules.payer, simulateMs };
  }

  async function settle(
    payment: PaymentPayload,
    _requirements: PaymentRequirements,
    signal: AbortSignal,
    beforeBroadcast?: BeforeBroadcast,
    onAccepted?: OnAccepted,
  ): Promise<SettleResult> {
    const decoded = decodePayload(payment);
    if (!decoded) return { success: false, errorReason: SVM_REASON.couldNotBeDecoded, transaction: '', network: config.network, payer: '' };
    const { tx, wire } = decoded;
    const transfer = transferOf(tx);
    // Reserved before anything is signed: a payer's settlements in flight stay within its balance.
    const hold = await reserveSource(tx, transfer, signal);
    if (!hold)
      return { success: false, errorReason: SVM_REASON.payerBusy, errorMessage: PAYER_BUSY, transaction: '', network: config.network, payer: transfer.payer };
    let outcome: SettlementOutcome = 'unspent';
    try {
      const feePayerSignature = await config.pool.runTask('signEd25519', { message: tx.messageBytes }, signal);
      const transaction = encodeBase58(feePayerSignature);
      const signed = withSignature(wire, tx, 0, feePayerSignature);
      await beforeBroadcast?.(transaction);
      // Watched before it is sent: a confirmation streamed in before the send returns is not missed.
      const watched = config.signatures?.watch(transaction) ?? null;
      try {
        const stream = watched ? { watched, live: config.signatures!.live } : null;
        const result = await sendAndConfirm(signed, { transaction, payer: transfer.payer, stream, fee: settlementFee(tx) }, onAccepted);
        outcome = outcomeOf(result);
        return result;
      } finally {
        watched?.release();
      }
    } finally {
      hold.end(outcome);
    }
  }

  /** The reservation of this payment's amount; its verification's read, or (rarely: not kept) a fresh one. */
  async function reserveSource(tx: WireTransaction, transfer: ReturnType<typeof transferOf>, signal: AbortSignal) {
    const key = keyOf(tx);
    if (!sources.hasRead(key)) {
      const balance = await readSourceBalance(config.rpc, transfer.source, signal);
      if (balance !== null) sources.noteRead(key, transfer.source, balance);
    }
    return sources.reserve(key, transfer.source, transfer.amount, signal);
  }

  async function sendAndConfirm(
    signed: Uint8Array,
    sending: { readonly transaction: string; readonly payer: string; readonly stream: ConfirmStream | null; readonly fee: SettlementFee },
    onAccepted?: OnAccepted,
  ): Promise<SettleResult> {
    const { network } = config;
    const { transaction, payer, stream } = sending;
    // From here on the payment may land: the caller's disconnect no longer stops anything.
    const sent = await config.rpc.sendTransaction(Buffer.from(signed).toString('base64')).catch((err: unknown) => err);
    // Accepted (or maybe accepted: a fault): from here the fee payer may be billed.
    if (!isSendOutcome(sent) || sent.ok) config.onFee?.(sending.fee);
    // A fault (time-out, connection lost) says nothing about whether the node took the transaction:
    // it may still land, so it is pending under the signature we already know, never "failed".
    if (!isSendOutcome(sent)) {
      return {
        success: false,
        errorReason: SVM_REASON.settlementPending,
        errorMessage: `send: ${sent instanceof Error ? sent.message : String(sent)}`,
        transaction,
        network,
        payer,
      };
    }
    if (!sent.ok) {
      const reason = /AlreadyProcessed|already been processed/i.test(sent.message) ? SVM_REASON.duplicateSettlement : SVM_REASON.transactionFailed;
      return { success: false, errorReason: reason, errorMessage: sent.message, transaction: '', network, payer };
    }
    onAccepted?.(transaction);
    const outcome = await confirmSignature(config.rpc, transaction, commitment, confirmTimeoutMs, stream, config.stopping);
    if (outcome.status === 'failed')
      return { success: false, errorReason: SVM_REASON.transactionFailed, errorMessage: outcome.message, transaction, network, payer };
    if (outcome.status === 'pending')
      return { success: false, errorReason: SVM_REASON.settlementPending, errorMessage: outcome.message, transaction, network, payer };
    return { success: true, transaction, network, payer };
  }

  return {
    network: config.network,
    getExtra: () => ({ feePayer: config.feePayer }),
    getSigners: () => [config.feePayer],
    replayKey(payment) {
      const decoded = decodePayload(payment);
      return decoded ? keyOf(decoded.tx) : null;
    },
    payerOf: svmPayerOf,
    verify,
    settle,
    reportsAcceptance: true,
    settlementStatus: createSvmSettlementStatus(config.rpc, commitment),
  };
}
