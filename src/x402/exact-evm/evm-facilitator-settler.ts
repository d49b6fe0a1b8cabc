/**
 * Settles EVM `exact` payments through a remote x402 facilitator over its HTTP API (x402 v2
 * bodies): `POST /verify` and `POST /settle` with `{x402Version, paymentPayload,
 * paymentRequirements}`, `GET /supported` once at start. Transport failures and malformed
 * answers are data (`unexpected_*` reasons), never exceptions.
 */
import type { EvmTokenReader } from '../../chain/evm/evm-token-reader.ts';
import { ConfigError } from '../../errors.ts';
import { EVM_REASONS } from './evm-reasons.ts';
import { plainReason } from '../delivery/reason-messages.ts';
import { EVM_EXPIRY_SKEW_SECONDS, EVM_SETTLE_TIMEOUT_MS, type EvmSettler, pendingStatusOf } from './evm-settler.ts';
import type { EvmExactPayload } from './evm-verify.ts';
import type { SettlementStatus, SettleResult, VerifyResult } from '../types/scheme-facilitator.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';

/** Time-out of a /verify or /supported call, ms. */
export const FACILITATOR_VERIFY_TIMEOUT_MS = 10_000;

export interface FacilitatorSettlerConfig {
  /** Base URL; `/verify`, `/settle`, `/supported` are appended. */
  readonly url: string;
  /** Signers for our network from the facilitator's /supported. */
  readonly signers: readonly string[];
  readonly settleTimeoutMs?: number;
  /** How long /verify may take, ms (default FACILITATOR_VERIFY_TIMEOUT_MS). */
  readonly verifyTimeoutMs?: number;
  /**
   * Our own read of Base (`--evm-rpc-url` beside `--facilitator-url`): the facilitator's
   * transaction is then believed only once its receipt shows the payment. Without it, its word is taken.
   */
  readonly chain?: Pick<EvmTokenReader, 'payerState' | 'transferReceipt'> | null;
  /** Unix seconds; injectable for tests. */
  readonly nowSeconds?: () => number;
}

export interface FacilitatorSupport {
  readonly kinds: ReadonlyArray<{ readonly x402Version: number; readonly scheme: string; readonly network: string; readonly extra?: unknown }>;
  readonly signers: Readonly<Record<string, readonly string[]>>;
}

/** `reached: false` only when the request surely never arrived (connection refused, no such host). */
type Posted = { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly message: string; readonly reached: boolean };

const NEVER_ARRIVED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

async function postJson(url: string, body: unknown, timeoutMs: number, signal: AbortSignal | null): Promise<Posted> {
  const signals = signal ? [signal, AbortSignal.timeout(timeoutMs)] : [AbortSignal.timeout(timeoutMs)];
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.any(signals),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { ok: false, message: `${url} answered ${res.status} with a non-JSON body`, reached: true };
    }
    // Facilitators may answer a refusal with a 4xx that still carries the x402 response body.
    if (typeof parsed !== 'object' || parsed === null) return { ok: false, message: `${url} answered ${res.status} without a JSON object`, reached: true };
    return { ok: true, body: parsed as Record<string, unknown> };
  } catch (err) {
    const code = (err as { cause?: { code?: unknown } })?.cause?.code;
    return {
      ok: false,
      message: `${url}: ${err instanceof Error ? err.message : String(err)}`,
      reached: !(typeof code === 'string' && NEVER_ARRIVED.has(code)),
    };
  }
}

function requestBody(payment: PaymentPayload, requirements: PaymentRequirements): unknown {
  return { x402Version: payment.x402Version, paymentPayload: payment, paymentRequirements: requirements };
}

/** Why a fetch failed, in words: undici hides the system error (ECONNREFUSED, ENOTFOUND ...) in `cause`. */
function fetchFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` (${cause.message})` : ''}`;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Reads `GET /supported` at start-up. A facilitator that cannot be reached or read is a
 * configuration problem (ConfigError, exit 2) naming the URL fetched and why it failed.
 */
export async function fetchFacilitatorSupport(url: string, timeoutMs = FACILITATOR_VERIFY_TIMEOUT_MS): Promise<FacilitatorSupport> {
  const target = `${url.replace(/\/+$/, '')}/supported`;
  const problem = (why: string) => new ConfigError([`--facilitator-url: GET ${target} (the facilitator's supported payment kinds) failed: ${why}`]);
  let res: Response;
  try {
    res = await fetch(target, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw problem(fetchFailure(err, timeoutMs));
  }
  if (!res.ok) throw problem(`it answered HTTP ${res.status}`);
  const body = (await res.json().catch(() => null)) as Partial<FacilitatorSupport> | null;
  if (!Array.isArray(body?.kinds)) throw problem('the answer is not JSON with a kinds[] list');
  return { kinds: body.kinds, signers: body.signers ?? {} };
}

/** Signers the facilitator lists for a network (exact key first, then the `eip155:*` family). */
export function facilitatorSignersFor(support: FacilitatorSupport, network: string): readonly string[] {
  return support.signers[network] ?? support.signers['eip155:*'] ?? [];
}

/** Creates the facilitator settler. */
export function createFacilitatorSettler(config: FacilitatorSettlerConfig): EvmSettler {
  const base = config.url.replace(/\/+$/, '');
  const settleTimeoutMs = config.settleTimeoutMs ?? EVM_SETTLE_TIMEOUT_MS;
  const verifyTimeoutMs = config.verifyTimeoutMs ?? FACILITATOR_VERIFY_TIMEOUT_MS;
  const nowSeconds = config.nowSeconds ?? (() => Date.now() / 1000);

  async function statusOnChain(parsed: EvmExactPayload, requirements: PaymentRequirements, transaction: string): Promise<SettlementStatus> {
    const { from, nonce, validBefore, value } = parsed.authorization;
    const expired = nowSeconds() > Number(validBefore) + EVM_EXPIRY_SKEW_SECONDS;
    const state = await config.chain!.payerState(from, nonce);
    if (!state.ok) return { status: 'pending', message: `authorization state unreadable: ${state.message}` };
    const found = await config.chain!.transferReceipt(transaction, { from, to: requirements.payTo, value: BigInt(value), nonce });
    return pendingStatusOf(found, state.nonceUsed, expired);
  }

  /** The facilitator's success, believed once the transaction's receipt shows the payment (when we can read the chain). */
  async function checkedSuccess(
    parsed: EvmExactPayload,
    requirements: PaymentRequirements,
    transaction: string,
    network: string,
    payer: string,
  ): Promise<SettleResult> {
    if (!config.chain) return { success: true, transaction, network, payer };
    const status = await statusOnChain(parsed, requirements, transaction);
    if (status.status === 'landed') return { success: true, transaction, network, payer };
    const errorReason = status.status === 'failed' ? status.reason : EVM_REASONS.settlementPending;
    return { success: false, errorReason, errorMessage: `facilitator reported ${transaction}: ${status.message}`, transaction, network, payer };
  }

  return {
    kind: 'facilitator',
    signers: config.signers,
    async verifyOnChain(parsed, payment, requirements, signal): Promise<VerifyResult> {
      const payer = parsed.authorization.from;
      const posted = await postJson(`${base}/verify`, requestBody(payment, requirements), verifyTimeoutMs, signal);
      if (!posted.ok) return { isValid: false, invalidReason: EVM_REASONS.unexpectedVerifyError, invalidMessage: posted.message, payer, transient: true };
      const b = posted.body;
      if (typeof b.isValid !== 'boolean')
        return { isValid: false, invalidReason: EVM_REASONS.unexpectedVerifyError, invalidMessage: 'facilitator /verify answer has no isValid', payer };
      if (b.isValid) return { isValid: true, payer };
      // The facilitator's words are not ours: its reason must be a plain code to reach a client.
      const invalidReason = plainReason(b.invalidReason, EVM_REASONS.unexpectedVerifyError);
      return { isValid: false, invalidReason, invalidMessage: typeof b.invalidMessage === 'string' ? b.invalidMessage : 'refused by the facilitator', payer };
    },
    /**
     * With our own read of the chain and a recorded transaction, its receipt decides (as for the
     * relayer). Otherwise the facilitator is asked to settle again: x402 facilitators reconcile a
     * retried settle of the same payload with the transaction already sent. Only success or a
     * definite on-chain failure resolve it; anything else (a nonce-used refusal included: it
     * cannot say by whom) stays pending.
     */
    async settlementStatus(parsed, requirements, transaction, payment, signal) {
      if (config.chain && transaction !== '') return statusOnChain(parsed, requirements, transaction);
      const again = await this.settle(parsed, payment, requirements, signal);
      if (again.success) return { status: 'landed' };
      const reason = again.errorReason ?? EVM_REASONS.unexpectedSettleError;
      if (reason === EVM_REASONS.transactionFailed || reason === EVM_REASONS.transferEventMismatch)
        return { status: 'failed', reason, message: again.errorMessage ?? 'failed on chain' };
      return { status: 'pending', message: `facilitator: ${reason}` };
    },
    async settle(parsed, payment, requirements, _signal, beforeBroadcast): Promise<SettleResult> {
      const network = payment.accepted.network;
      const payer = parsed.authorization.from;
      await beforeBroadcast?.('');
      // No caller abort once asked: the facilitator may broadcast regardless, so we wait for its word.
      const posted = await postJson(`${base}/settle`, requestBody(payment, requirements), settleTimeoutMs, null);
      // A settle that may have arrived (time-out, broken answer) may be broadcast: pending, not failed.
      if (!posted.ok)
        return {
          success: false,
          errorReason: posted.reached ? EVM_REASONS.settlementPending : EVM_REASONS.unexpectedSettleError,
          errorMessage: posted.message,
          transaction: '',
          network,
          payer,
        };
      const b = posted.body;
      if (typeof b.success !== 'boolean')
        return {
          success: false,
          errorReason: EVM_REASONS.unexpectedSettleError,
          errorMessage: 'facilitator /settle answer has no success',
          transaction: '',
          network,
          payer,
        };
      const transaction = typeof b.transaction === 'string' ? b.transaction : '';
      if (b.success && transaction !== '') return checkedSuccess(parsed, requirements, transaction, network, payer);
      const errorReason = plainReason(b.errorReason, EVM_REASONS.unexpectedSettleError);
      return {
        success: false,
        errorReason,
        errorMessage: typeof b.errorMessage === 'string' ? b.errorMessage : 'refused by the facilitator',
        transaction,
        network,
        payer,
      };
    },
  };
}
