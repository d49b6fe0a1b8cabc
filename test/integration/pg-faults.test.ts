/**
 * The database away at a paid call (a real PostgreSQL behind a TCP relay that a test can cut or
 * freeze): the call answers 503 `database_unavailable` before anything is verified or sent, never
 * a 200; a database lost between the claim and the broadcast stops the payment before it reaches
 * the chain; once the database is back, paid calls work again without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import { createPaymentProcessor, type PaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import type { ChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import { createPgPaidAnswerStore } from '../../src/x402/stores/pg-paid-answer-store.ts';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import { createPgReplayGuard } from '../../src/x402/stores/pg-replay-guard.ts';
import type { PaymentPayload, PaymentRequirements } from '../../src/x402/types/x402-types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { startTcpFaultRelay, type TcpFaultRelay } from '../helpers/tcp-fault-relay.ts';

const NETWORK = 'test:net';
const QUERY_TIMEOUT_MS = 800;
let db: TestDatabase;
let relay: TcpFaultRelay;
let client: PgClient;
let processor: PaymentProcessor;
const seen = { verified: 0, broadcast: 0 };
/** Runs inside verify, after the claim: a test cuts the database there. */
let duringVerify: () => void = () => undefined;

/** Verifies and "broadcasts" without a chain; the pending record is written before the broadcast, as the real schemes do. */
const scheme: ExactScheme = {
  network: NETWORK,
  getExtra: () => ({}),
  getSigners: () => [],
  replayKey: (p) => `test:${(p.payload as { n: number }).n}`,
  async verify() {
    seen.verified++;
    duringVerify();
    return { isValid: true, payer: 'payer' };
  },
  async settle(_p, _r, _s, beforeBroadcast) {
    await beforeBroadcast?.('tx');
    seen.broadcast++;
    return { success: true, transaction: 'tx', network: NETWORK, payer: 'payer' };
  },
  settlementStatus: async () => ({ status: 'landed' }),
};

let n = 0;
function paidCall(): PaidCall {
  const entry = CATALOG[0]!;
  return {
    entry,
    payment: { x402Version: 2, payload: { n: n++ } } as unknown as PaymentPayload,
    requirements: { scheme: 'exact', network: NETWORK } as PaymentRequirements,
    resourceUrl: `http://127.0.0.1${entry.path}`,
    request: { path: entry.path, query: '', signal: new AbortController().signal },
    answer: async () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"ok":true}' }),
  };
}

beforeAll(async () => {
  db = await createTestDatabase('pg-faults');
  relay = await startTcpFaultRelay(db.port);
  const url = new URL(db.url);
  url.port = new URL(relay.url).port;
  client = createPgClient({ url: url.toString(), queryTimeoutMs: QUERY_TIMEOUT_MS, connectTimeoutMs: QUERY_TIMEOUT_MS });
  await applyMigrations(client);
  processor = createPaymentProcessor({
    schemes: [scheme],
    replayGuard: createPgReplayGuard({ db: client }),
    pending: createPgPendingSettlements({ db: client }),
    paidAnswers: createPgPaidAnswerStore({ db: client }),
    challengeFor: () => ({ reply: (_url: string, reason: string) => ({ status: 402, body: reason }) }) as unknown as ChallengeBuilder,
    onFault: () => undefined,
  });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await relay?.close();
  await db?.drop();
});

const errorOf = (body: string | Buffer) => JSON.parse(String(body)).error as string;

describe('the database away at a paid call', () => {
  it('works through the relay while the database answers', async () => {
    relay.mode = 'pass';
    const reply = await processor.processPaidCall(paidCall());
    expect(reply.status).toBe(200);
  });

  it('refused (connections reset): 503 database_unavailable, nothing verified or sent', async () => {
    relay.mode = 'reset';
    const before = { ...seen };
    const reply = await processor.processPaidCall(paidCall());
    expect(reply.status).toBe(503);
    expect(errorOf(reply.body)).toBe('database_unavailable');
    expect(String(reply.body)).not.toContain('x402-test-only');
    expect(seen).toEqual(before);
  });

  it('frozen (no byte comes back): 503 after the query time-out, never a 200', async () => {
    // An open connection first (the reset above broke the pool's): the freeze meets a query in
    // flight, which only the query time-out can end (the relay neither answers nor closes).
    relay.mode = 'pass';
    // Every idle connection the reset broke fails its next query once (a paid call's writes run side
    // by side, so there may be several): asked until one answers.
    await expect
      .poll(
        () =>
          client.query('select 1').then(
            () => true,
            () => false,
          ),
        { timeout: 5_000, interval: 20 },
      )
      .toBe(true);
    relay.mode = 'hold';
    const before = { ...seen };
    const reply = await processor.processPaidCall(paidCall());
    expect(reply.status).toBe(503);
    expect(errorOf(reply.body)).toBe('database_unavailable');
    expect(JSON.parse(String(reply.body)).reason).toBe('timeout');
    expect(seen).toEqual(before);
  });

  it('lost after the claim: the pending record fails, so the payment is never broadcast (503)', async () => {
    relay.mode = 'pass';
    const before = seen.broadcast;
    duringVerify = () => {
      relay.mode = 'reset';
    };
    const reply = await processor.processPaidCall(paidCall());
    duringVerify = () => undefined;
    expect(reply.status).toBe(503);
    expect(errorOf(reply.body)).toBe('database_unavailable');
    expect(seen.broadcast).toBe(before);
  });

  it('back again: paid calls answer without a restart', async () => {
    relay.mode = 'pass';
    await expect.poll(async () => (await processor.processPaidCall(paidCall())).status, { timeout: 10_000, interval: 200 }).toBe(200);
  });
});
