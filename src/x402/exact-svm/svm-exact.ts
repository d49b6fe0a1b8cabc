/**
 * The Solana `exact` scheme (ExactScheme) as a facilitator runs it: decode the payer's partially signed transaction,
 * apply the x402 exact-SVM rules, check the payer's signatures in the worker pool, simulate over RPC; settle by
 * co-signing as fee payer in the pool, sending, and waiting for the configured commitment (streamed from Geyser when
 * the service has a signature watch, polled otherwise: svm-confirm.ts). Expected failures are results with x402 reason codes.
 */
import { associatedTokenAddress } from '../../chain/tokens/associated-token.ts';
import { decodeBase58, encodeBase58 } from '../../chain/solana/base58.ts';
import type { RpcClient, RpcCommitment } from '../../chain/solana/rpc-client.ts';
import type { SignatureWatch } from '../../chain/geyser/signature-watch.ts';
import { withSignature, type WireTransaction } from '../../chain/solana/svm-wire.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import type { BeforeBroadcast, OnAccepted, SettleResult, VerifyResult } from '../types/scheme-facilitator.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';
import { DEFAULT_SOL_PRICE_USD, failedSettlementFeeUnits, type SettlementFee } from './svm-fee-payer.ts';
import { SVM_REASON } from './svm-reasons.ts';
import { checkSvmPaymentRules, DEFAULT_MAX_PRIORITY_FEE_LAMPORTS, settlementFee, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type SvmRuleTerms } from './svm-rules.ts';
import { createSvmSettlementStatus } from './svm-settlement-status.ts';
import { decodePayload, keyOf, outcomeOf, svmPayerOf } from './svm-payload.ts';
import { createSourceBudget, type SettlementOutcome, type SourceBudget } from '../stores/source-budget.ts';
import { checkSource, readMintDecimals, readSourceBalance, transferOf } from './svm-source-read.ts';
import { createSvmSignatures, type SvmPoolTasks } from './svm-signatures.ts';
import { sendAndConfirm } from './svm-send.ts';

export type { SvmPoolTasks } from './svm-signatures.ts';

/** How long settlement waits for the commitment before reporting `settlement_pending`. */
export const SETTLE_CONFIRM_TIMEOUT_MS = 30_000;

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
  /** SOL's price (USD) at which a failed settlement's fee counts as a loss (`failureFeeUnits`); default DEFAULT_SOL_PRICE_USD. */
  readonly solPriceUsd?: number;
}

const TOKEN_PROGRAMS = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM] as const;

const PAYER_BUSY =
  "this payer's token account is committed, by its settlements in flight, up to the balance read at verification; nothing was signed or sent; retry once they finish";

/** Builds the scheme for one network; derives payTo's token accounts lazily, once per terms. */
export function createSvmExactScheme(config: SvmExactConfig): ExactScheme {
  const commitment = config.commitment ?? 'confirmed';
  const confirmTimeoutMs = config.confirmTimeoutMs ?? SETTLE_CONFIRM_TIMEOUT_MS;
  const feePayerBytes = decodeBase58(config.feePayer);
  if (feePayerBytes?.length !== 32) throw new Error('fee payer must be a base58 32-byte key');
  const destinations = new Map<string, Promise<SvmRuleTerms['destinations']>>();
  /** Each asset's decimals, read from its mint once (a failed read is asked again next time). */
  const decimals = new Map<string, Promise<number | null>>();
  const maxPriorityFeeLamports = BigInt(config.maxPriorityFeeLamports ?? DEFAULT_MAX_PRIORITY_FEE_LAMPORTS);
  const sources = config.sources ?? createSourceBudget();
  const { cosign, signaturesValid } = createSvmSignatures(config.pool);
  const sendConfig = { ...config, commitment, confirmTimeoutMs };

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

  function decimalsFor(asset: string): Promise<number | null> {
    let found = decimals.get(asset);
    if (!found) {
      // Not the request's signal: the read is shared by every payment of the asset. An RPC fault
      // is the payment's (502/503, as the source's read), and neither it nor a non-mint is kept.
      found = readMintDecimals(config.rpc, asset, TOKEN_PROGRAMS, config.stopping);
      decimals.set(asset, found);
      const forget = () => decimals.get(asset) === found && decimals.delete(asset);
      found.then((d) => d === null && forget(), forget);
    }
    return found;
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
    const { tx } = decoded;
    const amount = BigInt(requirements.amount);
    const [payTo, mintDecimals] = await Promise.all([destinationsFor(requirements.payTo, requirements.asset), decimalsFor(requirements.asset)]);
    if (mintDecimals === null)
      return { isValid: false, invalidReason: SVM_REASON.simulationFailed, invalidMessage: 'the asset is not a token mint', payer: '' };
    const rules = checkSvmPaymentRules(tx, {
      asset: requirements.asset,
      amount,
      decimals: mintDecimals,
      feePayer: config.feePayer,
      maxPriorityFeeLamports,
      destinations: payTo,
    });
    if (!rules.ok) return { isValid: false, invalidReason: rules.reason, payer: rules.payer };
    // The payer's signatures first (with one pool thread verification waits for them alone), then our co-signature: settle finds it ready.
    const sign = (): Promise<boolean> => {
      const signed = signaturesValid(tx, signal);
      cosign(payment, tx, signal);
      return signed;
    };
    return checkPayer(tx, sign, { source: rules.transfer.source, payer: rules.payer, mint: requirements.asset, amount }, signal);
  }

  /**
   * The payer's signatures (`sign` starts them, with our co-signature) beside its source: a recent
   * checked read of it that covers the payment, or one chain read.
   */
  async function checkPayer(
    tx: WireTransaction,
    sign: () => Promise<boolean>,
    p: { source: string; payer: string; mint: string; amount: bigint },
    signal: AbortSignal,
  ): Promise<VerifyResult> {
    const key = keyOf(tx);
    if (sources.reuseRead(key, p.source, p.mint, p.amount)) {
      if (!(await sign())) return { isValid: false, invalidReason: SVM_REASON.signatureInvalid, payer: p.payer };
      return { isValid: true, payer: p.payer };
    }
    // One chain read: the source's balance and state. The send's preflight checks the rest
    // (docs/payments.md#one-chain-round-trip), so there is no simulation. It leaves before the
    // signatures: when the loop is idle they run on it, synchronously, and the read's round trip
    // then overlaps them instead of following them.
    const [reading, read] = [performance.now(), sources.startRead()];
    const checking = checkSource(config.rpc, { address: p.source, mint: p.mint, amount: p.amount, owners: TOKEN_PROGRAMS }, signal);
    const [signed, source] = await Promise.all([sign(), checking.then((r) => ({ ...r, ms: performance.now() - reading }))]);
    const simulateMs = source.ms;
    if (!signed) return { isValid: false, invalidReason: SVM_REASON.signatureInvalid, payer: p.payer, simulateMs };
    if (!source.ok) return { isValid: false, invalidReason: SVM_REASON.simulationFailed, invalidMessage: source.message, payer: p.payer, simulateMs };
    read.note(key, p.source, source.balance, p.mint);
    return { isValid: true, payer: p.payer, simulateMs };
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
      const feePayerSignature = await cosign(payment, tx, signal);
      const transaction = encodeBase58(feePayerSignature);
      const signed = withSignature(wire, tx, 0, feePayerSignature);
      const plan = await beforeBroadcast?.(transaction);
      // Watched before it is sent: a confirmation streamed in before the send returns is not missed.
      const watched = config.signatures?.watch(transaction) ?? null;
      try {
        const stream = watched ? { watched, live: config.signatures!.live } : null;
        const sending = { transaction, payer: transfer.payer, stream, fee: settlementFee(tx), handOff: plan?.handOff === true };
        const result = await sendAndConfirm(sendConfig, signed, sending, onAccepted);
        outcome = outcomeOf(result);
        // Refused or failed: the source is not what its last read said; its next payment reads the chain.
        if (!result.success) sources.forgetRead(transfer.source);
        return result;
      } finally {
        watched?.release();
      }
    } finally {
      hold.end(outcome);
    }
  }

  /** The reservation of this payment's amount; its verification's read, or (rarely: not kept) a fresh one. */
  function reserveSource(tx: WireTransaction, transfer: ReturnType<typeof transferOf>, signal: AbortSignal) {
    return sources.reserve(keyOf(tx), transfer.source, transfer.amount, signal, () => readSourceBalance(config.rpc, transfer.source, signal));
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
    failureFeeUnits(payment, reason) {
      const decoded = decodePayload(payment);
      return decoded ? failedSettlementFeeUnits(decoded.tx, reason, config.solPriceUsd ?? DEFAULT_SOL_PRICE_USD) : 0;
    },
    settlementStatus: createSvmSettlementStatus(config.rpc, commitment),
    async rebroadcast(payment, transaction, signal) {
      const decoded = decodePayload(payment);
      if (!decoded) return;
      // Our co-signature is deterministic: the same bytes as before the stop, or nothing is sent.
      const signature = await cosign(payment, decoded.tx, signal).catch(() => null);
      if (!signature || encodeBase58(signature) !== transaction) return;
      const wire = Buffer.from(withSignature(decoded.wire, decoded.tx, 0, signature)).toString('base64');
      await config.rpc.sendTransaction(wire, signal, { skipPreflight: true }).catch(() => undefined);
    },
  };
}
