/**
 * An `exact` scheme (src/x402/types/exact-scheme.ts) whose chain is a script: each payment (its
 * payload's `id`) verifies and settles as the test says, and the fake records every call, every
 * broadcast and what landed. It keeps the contract the real schemes keep: `beforeBroadcast` runs
 * (and may stop the broadcast by throwing) before the payment can reach the chain, `onAccepted`
 * once the node took it, and the same payment always has the same transaction id, so a second
 * settlement of one payment shows as a second broadcast. Waits and failures come from a FaultPlan:
 * `scheme.settle` (before anything is sent) and `scheme.confirm` (sent and accepted, not confirmed).
 */
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { BeforeBroadcast, OnAccepted, SettlementStatus, SettleResult, VerifyResult } from '../../src/x402/types/scheme-facilitator.ts';
import type { PaymentPayload } from '../../src/x402/types/x402-types.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';

/** How `settle` ends once it got as far as the chain. */
export type FakeSettle =
  | { readonly kind: 'landed' }
  /** Sent, its confirmation not seen in time: `settlement_pending`. */
  | { readonly kind: 'pending' }
  /** Refused before anything was sent (`broadcast` false), or sent and failed on chain. */
  | { readonly kind: 'failed'; readonly reason: string; readonly broadcast: boolean }
  /** Sent, then the connection to the node broke: settle rejects. */
  | { readonly kind: 'throws' };

export interface FakeScript {
  readonly verify?: VerifyResult;
  readonly settle?: FakeSettle;
  /** Answers of `settlementStatus`, in order; the last one repeats (default: landed). */
  readonly statuses?: readonly SettlementStatus[];
  /** The transaction id is known only from the broadcast (a Base facilitator): `beforeBroadcast('')`. */
  readonly hashAfterBroadcast?: boolean;
}

export interface FakeCall {
  readonly op: 'verify' | 'settle' | 'status';
  readonly id: string;
}

export interface FakeExactScheme extends ExactScheme {
  /** Scripts the payment whose payload id is `id`; unscripted payments verify and land. */
  script(id: string, script: FakeScript): void;
  readonly calls: readonly FakeCall[];
  count(op: FakeCall['op'], id: string): number;
  /** Transactions sent to the chain, in order (one per broadcast). */
  readonly broadcasts: readonly string[];
  /** Transactions that landed: the payments charged. */
  readonly landed: ReadonlySet<string>;
}

export const FAKE_PAYER = 'FakePayer1111111111111111111111111111111111';

/** The transaction the fake sends for payment `id`. */
export const fakeTransaction = (id: string): string => `tx-${id}`;

export interface FakeExactSchemeConfig {
  readonly network: string;
  readonly faults?: FaultPlan;
  /** Tells `onAccepted` (early answers possible), as the Solana scheme does. */
  readonly reportsAcceptance?: boolean;
  /** False: no `settlementStatus` (a pending result is final). */
  readonly settlementStatus?: boolean;
}

const idOf = (payment: PaymentPayload): string => String(payment.payload.id);

/** Creates the scheme over an empty script. */
export function createFakeExactScheme(config: FakeExactSchemeConfig): FakeExactScheme {
  const faults = config.faults ?? createFaultPlan();
  const { network } = config;
  const scripts = new Map<string, FakeScript>();
  const statusAsked = new Map<string, number>();
  const calls: FakeCall[] = [];
  const broadcasts: string[] = [];
  const landed = new Set<string>();
  const scriptOf = (id: string): FakeScript => scripts.get(id) ?? {};
  const refusal = (s: Extract<FakeSettle, { kind: 'failed' }>, transaction: string): SettleResult => ({
    success: false,
    errorReason: s.reason,
    errorMessage: 'scripted failure',
    transaction,
    network,
    payer: FAKE_PAYER,
  });

  async function settle(
    payment: PaymentPayload,
    _requirements: unknown,
    _signal: AbortSignal,
    beforeBroadcast?: BeforeBroadcast,
    onAccepted?: OnAccepted,
  ): Promise<SettleResult> {
    const id = idOf(payment);
    calls.push({ op: 'settle', id });
    const s = scriptOf(id).settle ?? { kind: 'landed' };
    await faults.at('scheme.settle');
    if (s.kind === 'failed' && !s.broadcast) return refusal(s, '');
    const transaction = fakeTransaction(id);
    await beforeBroadcast?.(scriptOf(id).hashAfterBroadcast ? '' : transaction);
    broadcasts.push(transaction);
    if (config.reportsAcceptance) onAccepted?.(transaction);
    await faults.at('scheme.confirm');
    if (s.kind === 'throws') throw new Error('socket hang up (scripted)');
    if (s.kind === 'failed') return refusal(s, transaction);
    if (s.kind === 'pending') return { success: false, errorReason: 'settlement_pending', transaction, network, payer: FAKE_PAYER };
    landed.add(transaction);
    return { success: true, transaction, network, payer: FAKE_PAYER };
  }

  async function settlementStatus(payment: PaymentPayload, _r: unknown, transaction: string): Promise<SettlementStatus> {
    const id = idOf(payment);
    calls.push({ op: 'status', id });
    await faults.at('scheme.status');
    const statuses = scriptOf(id).statuses ?? [{ status: 'landed' }];
    const asked = statusAsked.get(id) ?? 0;
    statusAsked.set(id, asked + 1);
    const status = statuses[Math.min(asked, statuses.length - 1)]!;
    if (status.status === 'landed') landed.add(transaction);
    return status;
  }

  return {
    network,
    getExtra: () => ({ feePayer: 'FakeFeePayer' }),
    getSigners: () => ['FakeFeePayer'],
    replayKey: (payment) => (typeof payment.payload.id === 'string' ? `fake:${payment.payload.id}` : null),
    async verify(payment) {
      const id = idOf(payment);
      calls.push({ op: 'verify', id });
      await faults.at('scheme.verify');
      return scriptOf(id).verify ?? { isValid: true, payer: FAKE_PAYER };
    },
    settle,
    ...(config.reportsAcceptance ? { reportsAcceptance: true } : {}),
    ...(config.settlementStatus === false ? {} : { settlementStatus }),
    script: (id, script) => void scripts.set(id, script),
    calls,
    count: (op, id) => calls.filter((c) => c.op === op && c.id === id).length,
    broadcasts,
    landed,
  };
}
