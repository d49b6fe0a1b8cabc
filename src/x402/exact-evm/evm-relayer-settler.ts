/**
 * Settles EVM `exact` payments with our own relayer: reads nonce and balance from the token at
 * verify time; at settle time signs `transferWithAuthorization`, records its hash, submits it and
 * waits for a receipt whose AuthorizationUsed and Transfer logs match the authorization. Everything the token refuses maps to an x402 reason.
 *
 * A payer's transfers in flight never add up to more than the balance its verification read
 * (stores/source-budget.ts, as on Solana): authorizations cost a payer nothing to sign, every one
 * passes verification alone, and each gas estimate runs before the transfers ahead of it are mined,
 * so racing payments from one balance were all sent and all but one reverted, at our relayer's gas.
 * One that does not fit is refused at once (`payer_busy`, nothing sent): those ahead of it can only
 * spend, so waiting would not make room.
 */
import type { EvmRelayer, TransferAuthorizationCall } from '../../chain/evm/evm-relayer.ts';
import type { EvmTokenReader } from '../../chain/evm/evm-token-reader.ts';
import { createSourceBudget, type SettlementOutcome, type SourceBudget } from '../stores/source-budget.ts';
import { EVM_REASONS, reasonOfTransferError } from './evm-reasons.ts';
import { EVM_EXPIRY_SKEW_SECONDS, EVM_SETTLE_TIMEOUT_MS, type EvmSettler, pendingStatusOf } from './evm-settler.ts';
import type { EvmExactPayload } from './evm-verify.ts';
import type { BeforeBroadcast, SettleResult } from '../types/scheme-facilitator.ts';

export interface RelayerSettlerConfig {
  readonly reader: EvmTokenReader;
  readonly relayer: EvmRelayer;
  /** Receipt wait, ms; default EVM_SETTLE_TIMEOUT_MS. */
  readonly receiptTimeoutMs?: number;
  /** Unix seconds; injectable for tests. */
  readonly nowSeconds?: () => number;
  /** The payers' transfers in flight; default one of its own that never waits. */
  readonly budget?: SourceBudget;
}

/**
 * What a settlement did to the payer's balance, for the budget: a transfer the node refused or
 * that reverted spent nothing; one whose outcome is unknown (pending) may still land; a landed one,
 * or one whose receipt shows some other transfer, counts as spent (the side that refuses a payer,
 * never the one that sends a transaction that cannot pay).
 */
function outcomeOf(result: SettleResult): SettlementOutcome {
  if (result.success) return 'spent';
  if (result.errorReason === EVM_REASONS.settlementPending) return 'unknown';
  if (result.errorReason === EVM_REASONS.transferEventMismatch) return 'spent';
  return 'unspent';
}

const PAYER_BUSY = "this payer's balance is committed, by its transfers in flight, up to what verification read; nothing was sent; retry once they land";

/** The budget's keys: one payment (payer and nonce), and the balance it spends from (payer). */
const paymentKey = (p: EvmExactPayload) => `${p.authorization.from.toLowerCase()}:${p.authorization.nonce.toLowerCase()}`;
const sourceOf = (p: EvmExactPayload) => p.authorization.from.toLowerCase();

function toCall(p: EvmExactPayload): TransferAuthorizationCall {
  const a = p.authorization;
  return {
    from: a.from,
    to: a.to,
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce,
    signature: p.signature,
  };
}

/** Creates the relayer settler. */
export function createRelayerSettler(config: RelayerSettlerConfig): EvmSettler {
  const receiptTimeoutMs = config.receiptTimeoutMs ?? EVM_SETTLE_TIMEOUT_MS;
  const nowSeconds = config.nowSeconds ?? (() => Date.now() / 1000);
  const budget = config.budget ?? createSourceBudget({ waitMs: 0 });

  /** Reserves the transfer's value from its payer's balance; reads it first when verification's read is not kept. */
  function reserve(parsed: EvmExactPayload, signal: AbortSignal) {
    const readNow = async () => {
      const state = await config.reader.payerState(parsed.authorization.from, parsed.authorization.nonce);
      return state.ok ? state.balance : null;
    };
    return budget.reserve(paymentKey(parsed), sourceOf(parsed), BigInt(parsed.authorization.value), signal, readNow);
  }

  /** Signs, records (through `beforeBroadcast`), sends and follows one transfer to its receipt. */
  async function submitAndWait(parsed: EvmExactPayload, network: string, beforeBroadcast?: BeforeBroadcast): Promise<SettleResult> {
    const payer = parsed.authorization.from;
    const call = toCall(parsed);
    // The hash is known once signed: the pending record names our transaction before it is sent.
    // A broadcast plan (an early answer's hand-off) is Solana's: here the record is all that matters.
    const sent = await config.relayer.submit(call, beforeBroadcast ? async (hash) => void (await beforeBroadcast(hash)) : undefined);
    if (!sent.ok && sent.kind === 'refused')
      return { success: false, errorReason: reasonOfTransferError(sent.message), errorMessage: sent.message, transaction: sent.hash ?? '', network, payer };
    // An RPC fault may come after the node took the transaction (a lost answer): it may land,
    // so it is pending and resolved by our transaction's receipt, never "failed".
    if (!sent.ok)
      return {
        success: false,
        errorReason: EVM_REASONS.settlementPending,
        errorMessage: `broadcast outcome unknown: ${sent.message}`,
        transaction: sent.hash ?? '',
        network,
        payer,
      };
    const receipt = await config.relayer.waitForTransfer(sent.hash, call, receiptTimeoutMs);
    if (receipt.status === 'success') return { success: true, transaction: sent.hash, network, payer };
    const errorReason =
      receipt.status === 'timeout'
        ? EVM_REASONS.settlementPending
        : receipt.status === 'transfer_mismatch'
          ? EVM_REASONS.transferEventMismatch
          : EVM_REASONS.transactionFailed;
    return { success: false, errorReason, errorMessage: receipt.message, transaction: sent.hash, network, payer };
  }

  return {
    kind: 'relayer',
    signers: [config.relayer.address],
    async verifyOnChain(parsed, _payment, requirements) {
      const payer = parsed.authorization.from;
      const read = budget.startRead();
      const state = await config.reader.payerState(payer, parsed.authorization.nonce);
      if (!state.ok) {
        const reason = state.kind === 'not_eip3009' ? EVM_REASONS.eip3009NotSupported : EVM_REASONS.unexpectedVerifyError;
        return { isValid: false, invalidReason: reason, invalidMessage: state.message, payer, transient: state.kind !== 'not_eip3009' };
      }
      if (state.nonceUsed)
        return { isValid: false, invalidReason: EVM_REASONS.nonceAlreadyUsed, invalidMessage: 'this authorization nonce is already used on chain', payer };
      if (state.balance < BigInt(requirements.amount)) {
        return {
          isValid: false,
          invalidReason: EVM_REASONS.insufficientBalance,
          invalidMessage: `balance ${state.balance} is below ${requirements.amount}`,
          payer,
        };
      }
      read.note(paymentKey(parsed), sourceOf(parsed), state.balance);
      return { isValid: true, payer };
    },
    async settle(parsed, payment, _requirements, signal, beforeBroadcast) {
      const network = payment.accepted.network;
      const payer = parsed.authorization.from;
      // Abort is honoured only before broadcast: once sent, the transfer happens whether we wait or not.
      if (signal.aborted)
        return { success: false, errorReason: EVM_REASONS.unexpectedSettleError, errorMessage: 'aborted before broadcast', transaction: '', network, payer };
      const hold = await reserve(parsed, signal);
      if (!hold) return { success: false, errorReason: EVM_REASONS.payerBusy, errorMessage: PAYER_BUSY, transaction: '', network, payer };
      let outcome: SettlementOutcome = 'unknown';
      try {
        const result = await submitAndWait(parsed, network, beforeBroadcast);
        outcome = outcomeOf(result);
        return result;
      } finally {
        hold.end(outcome);
      }
    },
    /**
     * By our transaction's receipt, never by the nonce alone: the payer can cancel the nonce
     * (`cancelAuthorization`) or spend it in another transaction, and then nothing reached payTo.
     */
    async settlementStatus(parsed, requirements, transaction) {
      const { from, nonce, validBefore } = parsed.authorization;
      // Expiry is read first: once past it no transaction can use the nonce, so the state read after is final.
      const expired = nowSeconds() > Number(validBefore) + EVM_EXPIRY_SKEW_SECONDS;
      // The nonce before the receipt: a nonce used while our transaction has no receipt after it was used by another one.
      const state = await config.reader.payerState(from, nonce);
      if (!state.ok) return { status: 'pending', message: `authorization state unreadable: ${state.message}` };
      const expected = { from, to: requirements.payTo, value: BigInt(parsed.authorization.value), nonce };
      const found = transaction === '' ? ({ kind: 'none' } as const) : await config.reader.transferReceipt(transaction, expected);
      return pendingStatusOf(found, state.nonceUsed, expired);
    },
  };
}
