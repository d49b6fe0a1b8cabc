/**
 * The payment processor (createPaymentProcessor) over a fake exact scheme and the in-memory
 * stores, with a real receipt issuer and a real challenge builder: everything the paid call's
 * state machine touches, in memory, scripted by one FaultPlan. `restart()` stops this process and
 * starts another over what was durable; `call()` makes one paid call.
 */
import { CATALOG } from '../../src/catalog/endpoints.ts';
import type { HttpReply } from '../../src/errors.ts';
import { createEd25519Signer } from '../../src/chain/keys/ed25519.ts';
import { createReceiptIssuer } from '../../src/receipts/receipt-issuer.ts';
import { createEarlyAnswers, type EarlyAnswers, type EarlyLimits } from '../../src/x402/exact/early-answers.ts';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import { PAYMENT_IDENTIFIER } from '../../src/x402/types/payment-identifier.ts';
import { createPaymentProcessor, type PaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import { createChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import { SOLANA_MAINNET_CAIP2 } from '../../src/x402/types/x402-types.ts';
import { createFakeExactScheme, type FakeExactScheme, type FakeExactSchemeConfig } from './fake-exact-scheme.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { manualClock } from './manual-clock.ts';
import { createMemoryEarlyAnswerStore, type MemoryEarlyAnswerStore } from './memory-early-answer-store.ts';
import { createMemoryLedger, type MemoryLedger } from './memory-ledger.ts';
import { createMemoryPaidAnswerStore, type MemoryPaidAnswerStoreConfig, type MemoryPaidAnswerStore } from './memory-paid-answer-store.ts';
import { createMemoryPendingSettlements, type MemoryPendingSettlements } from './memory-pending-settlements.ts';
import { createMemoryReplayGuard, type MemoryReplayGuard } from './memory-replay-guard.ts';
import { fakeSchemeTerms } from './test-terms.ts';

export const ENTRY = CATALOG.find((e) => e.path === '/v1/epoch')!;
export const ANSWER_BODY = '{"epoch":"the answer computed for the paid call"}';
const TERMS = fakeSchemeTerms();
const BUILDER = createChallengeBuilder(ENTRY, TERMS);
const REQUIREMENTS = BUILDER.accepts.find((a) => a.network === SOLANA_MAINNET_CAIP2)!;
const SIGN = createEd25519Signer(new Uint8Array(32).fill(7));

export interface PaymentStateOptions {
  /** Early answers with these bounds (the scheme then reports acceptance). */
  readonly early?: EarlyLimits;
  readonly scheme?: Omit<FakeExactSchemeConfig, 'network' | 'faults' | 'reportsAcceptance'>;
  readonly answers?: Omit<MemoryPaidAnswerStoreConfig, 'faults'>;
  readonly recordsMax?: number;
}

export interface CallOptions {
  /** The payment-identifier id the payload carries. */
  readonly paymentId?: string;
  readonly query?: string;
  readonly signal?: AbortSignal;
  /** The handler's answer (default a 200 with ANSWER_BODY); a throw is the handler failing. */
  readonly answer?: () => Promise<HttpReply>;
  /** Another payload for the same payment id (the same replay key). */
  readonly variant?: string;
}

/** One process: the processor and the stores it was opened over. */
export interface PaymentProcess {
  readonly processor: PaymentProcessor;
  readonly replayGuard: MemoryReplayGuard;
  readonly pending: MemoryPendingSettlements;
  readonly paidAnswers: MemoryPaidAnswerStore;
  readonly earlyStore: MemoryEarlyAnswerStore;
  readonly early: EarlyAnswers | null;
  readonly faultsReported: string[];
}

/** Creates the fixture: one fake chain, one ledger, one process running. */
export function createPaymentStateFixture(options: PaymentStateOptions = {}) {
  const faults: FaultPlan = createFaultPlan();
  const clock = manualClock();
  const scheme: FakeExactScheme = createFakeExactScheme({
    network: SOLANA_MAINNET_CAIP2,
    faults,
    reportsAcceptance: options.early !== undefined,
    ...options.scheme,
  });
  const ledger: MemoryLedger = createMemoryLedger(faults);
  const earlyLog: string[] = [];
  const receipts = createReceiptIssuer({
    ledger,
    service: 'state-machine-test',
    serviceVersion: '0',
    baseUrl: () => 'http://svc.test',
    publicKey: 'StateMachineTestKey',
    sign: SIGN,
    now: () => new Date(clock.now()),
  });
  let handlerRuns = 0;

  function open(stores: Omit<PaymentProcess, 'processor' | 'early' | 'faultsReported'>): PaymentProcess {
    const faultsReported: string[] = [];
    const early = options.early
      ? createEarlyAnswers({ limits: options.early, store: stores.earlyStore, ledger, log: (l) => earlyLog.push(l), now: clock.now })
      : null;
    const processor = createPaymentProcessor({
      schemes: [scheme],
      receipts,
      replayGuard: stores.replayGuard,
      pending: stores.pending,
      paidAnswers: stores.paidAnswers,
      challengeFor: () => BUILDER,
      onFault: (what) => faultsReported.push(what),
      early,
      ...(options.recordsMax === undefined ? {} : { recordsMax: options.recordsMax }),
    });
    return { ...stores, processor, early, faultsReported };
  }

  let now = open({
    replayGuard: createMemoryReplayGuard(faults),
    pending: createMemoryPendingSettlements({ faults, ...(options.recordsMax === undefined ? {} : { maxEntries: options.recordsMax }) }),
    paidAnswers: createMemoryPaidAnswerStore({ faults, ...options.answers }),
    earlyStore: createMemoryEarlyAnswerStore(faults),
  });

  function call(id: string, o: CallOptions = {}): PaidCall {
    const payload = { id, ...(o.variant ? { variant: o.variant } : {}) };
    const extensions = o.paymentId ? { [PAYMENT_IDENTIFIER]: { info: { id: o.paymentId } } } : undefined;
    const query = o.query ?? '';
    return {
      entry: ENTRY,
      payment: { x402Version: 2, accepted: REQUIREMENTS, payload, ...(extensions ? { extensions } : {}) },
      requirements: REQUIREMENTS,
      resourceUrl: `http://svc.test${ENTRY.path}${query ? `?${query}` : ''}`,
      request: { path: ENTRY.path, query, signal: o.signal ?? new AbortController().signal },
      answer: async () => {
        handlerRuns++;
        return o.answer ? o.answer() : { status: 200, headers: { 'Content-Type': 'application/json' }, body: ANSWER_BODY };
      },
    };
  }

  return {
    faults,
    clock,
    scheme,
    ledger,
    earlyLog,
    get process(): PaymentProcess {
      return now;
    },
    pay: (id: string, o?: CallOptions) => now.processor.processPaidCall(call(id, o)),
    call,
    handlerRuns: () => handlerRuns,
    /** The ledger's payment entries (one per paid answer delivered). */
    payments: () => ledger.entries.filter((e) => e.kind === 'payment'),
    /** Another instance over the same stores (shared, as in PostgreSQL), its memory its own. */
    another: (): PaymentProcess => open({ replayGuard: now.replayGuard, pending: now.pending, paidAnswers: now.paidAnswers, earlyStore: now.earlyStore }),
    /** This process stops (its background work too); the next reads back what was durable. */
    restart(): PaymentProcess {
      now.early?.close();
      now = open({
        replayGuard: now.replayGuard.reopen(),
        pending: now.pending.reopen(),
        paidAnswers: now.paidAnswers.reopen(),
        earlyStore: now.earlyStore.reopen(),
      });
      return now;
    },
  };
}

export type PaymentStateFixture = ReturnType<typeof createPaymentStateFixture>;

/** The x402 reason a 402 names (the text before the colon of its `error`). */
export function reasonOf(reply: HttpReply): string {
  const body = JSON.parse(String(reply.body)) as { error?: string };
  return (body.error ?? '').split(':')[0]!;
}

/** The decoded PAYMENT-RESPONSE header of a reply. */
export function settleResponseOf(reply: HttpReply): Record<string, unknown> | null {
  const header = reply.headers?.['PAYMENT-RESPONSE'];
  return header ? (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>) : null;
}
