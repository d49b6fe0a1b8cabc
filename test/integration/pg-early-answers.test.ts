/**
 * The early answers' PostgreSQL stores against a real database (test/helpers/postgres.ts): the
 * outcomes and bars every instance shares (src/x402/state/pg-early-answer-store.ts), and the pending
 * settlements' list of early answers a restart takes up (src/x402/state/pg-pending-settlements.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { createPgEarlyAnswerStore } from '../../src/x402/state/pg-early-answer-store.ts';
import { createPgPendingSettlements } from '../../src/x402/state/pg-pending-settlements.ts';
import type { PendingSettlement } from '../../src/x402/state/pending-settlements.ts';
import type { PaymentPayload } from '../../src/x402/types/x402-types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

let db: TestDatabase;
const clients: PgClient[] = [];
const client = (): PgClient => {
  const c = createPgClient({ url: db.url, maxConnections: 2 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  db = await createTestDatabase('pg-early');
  await applyMigrations(client());
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
});

const record = (early: boolean): PendingSettlement => ({
  network: 'solana:x',
  transaction: 'sig',
  payer: 'P',
  payloadSha256: 'ab'.repeat(32),
  answer: { status: 200, headers: {}, bodyBase64: '' },
  paid: { originalUrl: '/v1/tipfloor', endpoint: '/v1/tipfloor', priceUsdcUnits: 1_000 },
  recordedAt: 1,
  ...(early ? { early: { payment: { x402Version: 2, payload: { transaction: 'AA==' } } as unknown as PaymentPayload } } : {}),
});

describe('early answers in PostgreSQL', () => {
  it('an outcome and a bar written by one instance are read by another; a later bar never shortens one', async () => {
    const now = Date.now();
    const [a, b] = [createPgEarlyAnswerStore({ db: client() }), createPgEarlyAnswerStore({ db: client() })];
    await a.settle('k1', { status: 'confirmed' });
    expect(await b.outcome('k1')).toEqual({ status: 'confirmed' });
    expect(await b.outcome('k2')).toBeUndefined();
    await a.bar('P', now + 60_000);
    expect(await b.barredUntil('P')).toBe(now + 60_000);
    await b.bar('P', now + 10_000);
    expect(await a.barredUntil('P')).toBe(now + 60_000);
    expect(await a.barredUntil('Q')).toBe(0);
  });

  it('the pending settlements list the early answers, with their delivered answer, and no other', async () => {
    const pending = createPgPendingSettlements({ db: client() });
    await pending.record('e1', record(true));
    await pending.record('n1', record(false));
    await pending.keepDelivered('e1', { status: 200, headers: { 'X-Service-Receipt': 'r' }, body: 'x' });
    const listed = await createPgPendingSettlements({ db: client() }).listEarly();
    expect(listed.map(([k]) => k)).toEqual(['e1']);
    expect(listed[0]![1].delivered?.headers['X-Service-Receipt']).toBe('r');
    expect(listed[0]![1].early?.payment.payload.transaction).toBe('AA==');
  });
});
