/**
 * The paid streams' fan-out phase (docs/streams.md, docs/benchmarks.md#paid-streams-streams): many
 * paying subscribers of `/v1/stream/slot`, each a `ws` socket bound to a loopback alias
 * (127.0.0.2, .3, ...: the service keys a client by its IPv4 address and lets one hold 20 stream
 * sockets), each paying Solana `exact` windows of `periods` periods signed by the official
 * `@x402/svm` scheme: a new window at each `renew` while others are still joining (so a long join
 * leaves none lapsed), none once all are in. Measured:
 * - latency, from the Geyser event (`at`, the service's clock) to the subscriber (its `Date.now()`
 *   on the same machine), only while every subscriber is paid and subscribed;
 * - billed against streamed time: each subscriber ends with the service's `closing: lapsed`;
 *   streamed is from its first payment's answer to that closing (and past `paidUntil` to the last
 *   update), billed the periods it paid. The goal: streamed within one second of billed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { fundedPayer, type TestPayer } from '../../test/helpers/svm-payer.ts';
import { openStream, type StreamConnection, type StreamMessage } from '../../test/helpers/stream-client.ts';

/** Stream sockets the service lets one client key (an IPv4 address) hold. */
const SOCKETS_PER_ADDRESS = 20;
/** Subscribers joining at once (funding, connecting, paying). */
const JOIN_CONCURRENCY = 24;
const PERIOD_MS = 10_000;

export interface FanoutConfig {
  readonly url: string;
  readonly rpcUrl: string;
  readonly subscribers: number;
  /** Periods each subscriber's window buys: long enough to cover the join and the measurement. */
  readonly periods: number;
  readonly measureMs: number;
}

interface Subscriber {
  readonly conn: StreamConnection;
  periodsPaid: number;
  paidAt: number;
  paidUntil: number;
  lastUpdateAt: number;
  closingAt: number;
  closingReason: string;
}

const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
const summary = (values: number[]) => {
  values.sort((a, b) => a - b);
  return { n: values.length, p50: pct(values, 50), p99: pct(values, 99), max: values.at(-1) ?? Number.NaN, min: values[0] ?? Number.NaN };
};

/** Runs `task` over `items`, `limit` at a time. */
async function pooled<T, R>(items: readonly T[], limit: number, task: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** What the phase tells each subscriber: whether it is measuring now, and whether it still renews. */
interface PhaseState {
  readonly latencies: number[];
  measuring: boolean;
  joining: boolean;
}

/** One subscriber: connected from its alias, its window paid. */
async function join(config: FanoutConfig, payer: TestPayer, i: number, phase: PhaseState): Promise<Subscriber> {
  const localAddress = `127.0.0.${2 + Math.floor(i / SOCKETS_PER_ADDRESS)}`;
  const scheme = new ExactSvmScheme(payer.signer, { rpcUrl: config.rpcUrl });
  let window: Record<string, unknown> = {};
  const pay = async () => {
    const { payload } = await scheme.createPaymentPayload(2, window as never);
    conn.pay({ x402Version: 2, accepted: window, payload });
  };
  let self: Subscriber | null = null;
  const onMessage = (m: StreamMessage, at: number) => {
    if (m.type === 'update') {
      if (phase.measuring) phase.latencies.push(at - Number(m.at));
      if (self) self.lastUpdateAt = at;
    } else if (m.type === 'renew' && self && phase.joining) void pay();
    else if (m.type === 'payment-response' && self) {
      self.paidUntil = Number(m.paidUntil);
      self.periodsPaid += config.periods;
    } else if (m.type === 'closing' && self) {
      self.closingAt = at;
      self.closingReason = String(m.reason);
    }
  };
  const conn = await openStream(`${config.url.replace(/^http/, 'ws')}/v1/stream/slot`, { localAddress, onMessage });
  const offer = await conn.nextOf('payment-required');
  const terms = offer.paymentRequired.accepts.find((a: { scheme: string; network: string }) => a.scheme === 'exact' && a.network.startsWith('solana:'));
  window = { ...terms, amount: String(BigInt(terms.amount) * BigInt(config.periods)) };
  await pay();
  const paid = await conn.next();
  if (paid.type !== 'payment-response') throw new Error(`subscriber ${i}: ${paid.type} ${paid.reason ?? ''} ${paid.error ?? ''}`);
  self = { conn, periodsPaid: config.periods, paidAt: Date.now(), paidUntil: Number(paid.paidUntil), lastUpdateAt: 0, closingAt: 0, closingReason: '' };
  return self;
}

/** Funds, connects and pays every subscriber, measures the fan-out, then waits for every window to lapse. */
export async function fanoutPhase(config: FanoutConfig) {
  const phase: PhaseState = { latencies: [], measuring: false, joining: true };
  const fundStarted = Date.now();
  const payers = await pooled(Array.from({ length: config.subscribers }), JOIN_CONCURRENCY, () => fundedPayer(config.rpcUrl, 10_000_000));
  const joinStarted = Date.now();
  // A subscriber refused at the door or at its payment (a cap, a busy pool) is counted, not fatal: the figure says how many joined.
  const failures = new Map<string, number>();
  const joinedOrNot = await pooled(payers, JOIN_CONCURRENCY, (payer, i) =>
    join(config, payer, i, phase).catch((err: unknown) => {
      const why = (err instanceof Error ? err.message : String(err)).replace(/^subscriber \d+: /, '').slice(0, 120);
      failures.set(why, (failures.get(why) ?? 0) + 1);
      return null;
    }),
  );
  const subs = joinedOrNot.filter((s): s is Subscriber => s !== null);
  const joined = Date.now();
  phase.joining = false;
  phase.measuring = true;
  await sleep(config.measureMs);
  phase.measuring = false;
  const paidAtEnd = subs.filter((s) => s.paidUntil > Date.now()).length;
  // Every window lapses by itself: the service closes each socket (nothing here renews).
  const lastUntil = Math.max(...subs.map((s) => s.paidUntil));
  await Promise.race([Promise.all(subs.map((s) => s.conn.closed)), sleep(Math.max(0, lastUntil - Date.now()) + 5_000)]);
  for (const s of subs) s.conn.ws.terminate();
  const lapsed = subs.filter((s) => s.closingReason === 'lapsed');
  return {
    subscribers: config.subscribers,
    addresses: Math.ceil(config.subscribers / SOCKETS_PER_ADDRESS),
    joinedPaid: subs.length,
    joinFailures: Object.fromEntries(failures),
    windowPeriods: config.periods,
    fundSeconds: (joinStarted - fundStarted) / 1000,
    joinSeconds: (joined - joinStarted) / 1000,
    measureSeconds: config.measureMs / 1000,
    paidAtMeasureEnd: paidAtEnd,
    latencyMs: summary(phase.latencies),
    billedVsStreamed: {
      windowMs: config.periods * PERIOD_MS,
      renewedWhileJoining: subs.filter((s) => s.periodsPaid > config.periods).length,
      lapsed: lapsed.length,
      otherEndings: [...new Set(subs.filter((s) => s.closingReason !== 'lapsed').map((s) => s.closingReason || 'none'))],
      // Streamed minus billed: from the payment's answer to the lapse's closing, and past paidUntil to the last update.
      streamedMinusBilledMs: summary(lapsed.map((s) => s.closingAt - s.paidAt - s.periodsPaid * PERIOD_MS)),
      lastUpdatePastPaidUntilMs: summary(lapsed.map((s) => s.lastUpdateAt - s.paidUntil)),
    },
  };
}
