/**
 * One database transaction per paid call's commit, against a real PostgreSQL (a fresh database
 * for this file): the ledger batch's transaction holds the entries and the payment state staged
 * with them (pg-ledger-batch.ts). Real database ledgers, channel store, replay guard, pending
 * settlements, payment-identifier store, channel processor, voucher signatures and receipts; the
 * chain is the channel fixture's stand-in. Each "instance" is its own connection pool and ledger,
 * as separate processes on one database are. A fault is a statement the wrapped connection refuses
 * at a named point, the way a dropped connection refuses it: the real transaction is rolled back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../src/errors.ts';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient, type PgQuery } from '../../src/postgres/pg-client.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import { createPgLedger } from '../../src/ledger/pg-ledger.ts';
import { createPgChannelStore } from '../../src/x402/channels/pg-channel-store.ts';
import { createPgPaidAnswerStore } from '../../src/x402/stores/pg-paid-answer-store.ts';
import type { PendingSettlement } from '../../src/x402/stores/pending-settlements.ts';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import { createPgReplayGuard } from '../../src/x402/stores/pg-replay-guard.ts';
import { ANSWER_BODY, chargedOf, createChannelCrashFixture, PRICE, textOf } from '../helpers/channel-crash-fixture.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

let db: TestDatabase;
let admin: PgClient;
const closers: Array<() => Promise<void>> = [];
const T = 1_000_000;
const RECORD: PendingSettlement = {
  network: 'solana:test',
  transaction: '',
  payer: 'payer',
  payloadSha256: 'ab'.repeat(32),
  answer: { status: 200, headers: {}, bodyBase64: '' },
  paid: { originalUrl: '/v1/epoch', endpoint: '/v1/epoch', priceUsdcUnits: 1000 },
  recordedAt: T,
};

/** What one instance did on its connections: transactions begun, writes outside them; `failAt` refuses the statement in a transaction that matches after `skip` that did. */
interface Counted {
  transactions: number;
  writesAlone: number;
  failAt: { readonly re: RegExp; skip: number } | null;
  /** Set: each transaction waits here before its first statement (two instances held until both are in). */
  gate: Promise<void> | null;
}

/** One instance: its own pool, the database ledger and the payment stores over it, counted. */
async function instance() {
  const c = createPgClient({ url: db.url, maxConnections: 4 });
  const n: Counted = { transactions: 0, writesAlone: 0, failAt: null, gate: null };
  const faulty = (tx: PgQuery): PgQuery => ({
    query(text, params, signal) {
      if (n.failAt?.re.test(text) && n.failAt.skip-- === 0) {
        n.failAt = null;
        return Promise.reject(new ServiceError('database_unavailable', 'the payment database failed (scripted)', { reason: '57P01' }));
      }
      return tx.query(text, params, signal);
    },
  });
  const client: PgClient = {
    ...c,
    query(text, params, signal) {
      if (/^\s*(insert|update|delete)/i.test(text)) n.writesAlone++;
      return c.query(text, params, signal);
    },
    async transaction(work) {
      n.transactions++;
      await n.gate;
      return c.transaction((tx) => work(faulty(tx)));
    },
  };
  const ledger: Ledger = await createPgLedger({ db: client, viewDir: join(mkdtempSync(join(tmpdir(), 'pg-one-commit-')), 'view'), retryWindowMs: 0 });
  closers.push(async () => {
    await ledger.close();
    await c.close();
  });
  return { n, ledger, client, channels: createPgChannelStore({ db: client, now: () => T }) };
}

const count = async (table: string): Promise<number> => Number((await admin.query<{ n: string }>(`select count(*) as n from ${table}`))[0]!.n);

beforeAll(async () => {
  db = await createTestDatabase('pg-one-commit');
  admin = createPgClient({ url: db.url, maxConnections: 2 });
  await applyMigrations(admin);
}, 120_000);
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await admin?.close();
  await db?.drop();
});

describe('a paid call in its ledger batch transaction', () => {
  it('a batch of paid calls is one transaction: entries, replay records, kept 200s and payment-identifier answers, no write alone', async () => {
    const a = await instance();
    const guard = createPgReplayGuard({ db: a.client });
    const pending = createPgPendingSettlements({ db: a.client });
    const answers = createPgPaidAnswerStore({ db: a.client });
    const keys = Array.from({ length: 12 }, (_, i) => `one-commit-${i}`);
    for (const key of keys) await pending.record(key, { ...RECORD, transaction: `sig-${key}` });
    const before = { ...a.n };
    const reply = (key: string) => ({ status: 200, headers: {}, body: `answer of ${key}` });
    const appended = await Promise.all(
      keys.map((key, i) =>
        a.ledger.append(
          { kind: 'payment', endpoint: '/v1/epoch', priceUsdcUnits: 1000, network: 'solana:test', receiptSha256: i.toString(16).padStart(64, '0') },
          async () => [guard.stageSettled!(key), pending.stageDelivered!(key, reply(key)), answers.stageRemember!(`id-${key}`, `fp-${key}`, reply(key))],
        ),
      ),
    );
    expect(appended.map((r) => r.index).sort((x, y) => x - y)).toEqual(keys.map((_, i) => i));
    expect(a.n.transactions - before.transactions).toBe(1);
    expect(a.n.writesAlone - before.writesAlone).toBe(0);
    expect(await count('ledger_entries')).toBe(keys.length);
    expect(await count(`replay_keys where state = 'settled'`)).toBe(keys.length);
    expect(await count('pending_settlements where delivered is not null')).toBe(keys.length);
    for (const key of keys) expect(await answers.lookup(`id-${key}`, `fp-${key}`)).toMatchObject({ kind: 'hit' });
  });

  it('a statement that touches no row fails its own write and the later ones of its call; the entry and the earlier writes stay', async () => {
    const a = await instance();
    const guard = createPgReplayGuard({ db: a.client });
    const pending = createPgPendingSettlements({ db: a.client });
    const answers = createPgPaidAnswerStore({ db: a.client });
    const entries = await count('ledger_entries');
    const reply = { status: 200, headers: {}, body: 'kept?' };
    const draft = { kind: 'payment', endpoint: '/v1/epoch', priceUsdcUnits: 1000, network: 'solana:test', receiptSha256: 'cd'.repeat(32) } as const;
    const appended = a.ledger.append(draft, async () => [
      guard.stageSettled!('no-record'),
      pending.stageDelivered!('no-record', reply),
      answers.stageRemember!('id-no-record', 'fp', reply),
    ]);
    await expect(appended).rejects.toMatchObject({
      name: 'AttachedWritesError',
      appended: { index: entries },
      reason: { message: expect.stringMatching(/no settlement record for no-record/) },
    });
    expect(await count('ledger_entries')).toBe(entries + 1);
    expect(await guard.acquire('no-record')).toBe('settled');
    expect(await answers.lookup('id-no-record', 'fp')).toEqual({ kind: 'miss' });
  });

  it("a voucher's charge, entry and kept answer are one transaction; a failed transaction leaves none of them and the voucher is refused", async () => {
    const f = createChannelCrashFixture({ shared: true });
    const a = await instance();
    const pay = f.instance(a.channels, a.ledger);
    const entries = await count('ledger_entries');
    const ok = await pay(await f.call(PRICE));
    expect(ok.status, textOf(ok)).toBe(200);
    const first = await a.channels.get(f.channelId);
    expect(first).toMatchObject({ charged: String(PRICE), rev: 2 });
    expect(first?.last?.answer).not.toBeNull();
    expect(await count('ledger_entries')).toBe(entries + 1);

    // The connection refuses the kept answer's statement (the charge and the entry are already in the transaction).
    const voucher = await f.call(2n * PRICE);
    const before = { ...a.n };
    // The second update of the row in the transaction: the charge is the first.
    a.n.failAt = { re: /^update channels/, skip: 1 };
    const refused = await pay(voucher);
    expect(refused.status).toBe(503);
    expect(a.n.transactions - before.transactions).toBe(1);
    expect(a.n.writesAlone - before.writesAlone).toBe(0);
    expect(await a.channels.get(f.channelId)).toEqual(first);
    expect(await count('ledger_entries')).toBe(entries + 1);
    expect(a.ledger.failure()).toBeNull();

    // The same voucher once the database answers: charged, logged and kept, the retry answered from the kept 200.
    const again = await pay(voucher);
    expect(again.status, textOf(again)).toBe(200);
    expect(chargedOf(again)).toBe(String(2n * PRICE));
    expect(await count('ledger_entries')).toBe(entries + 2);
    const retry = await pay(voucher);
    expect(retry.headers?.['X-Service-Receipt']).toBe(again.headers?.['X-Service-Receipt']);
    expect(textOf(retry)).toBe(ANSWER_BODY);
  });

  it('two instances charging one channel at once: one charge, one entry; the other is refused busy with no entry', async () => {
    const f = createChannelCrashFixture({ shared: true });
    const [a, b] = [await instance(), await instance()];
    const [payA, payB] = [f.instance(a.channels, a.ledger), f.instance(b.channels, b.ledger)];
    expect((await payA(await f.call(PRICE))).status).toBe(200);
    const entries = await count('ledger_entries');
    // Both read the channel and computed the answer; their ledger transactions begin only once both are there.
    let open!: () => void;
    let arrived = 0;
    const gate = new Promise<void>((resolve) => (open = resolve));
    for (const n of [a.n, b.n]) {
      n.gate = gate;
      const begin = n.transactions;
      void vi
        .waitUntil(() => n.transactions !== begin, { timeout: 60_000, interval: 5 })
        .then(() => {
          if (++arrived === 2) open();
        });
    }
    const voucher = await f.call(2n * PRICE);
    const replies = await Promise.all([payA(voucher), payB(voucher)]);
    a.n.gate = b.n.gate = null;
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 402]);
    const busy = replies.find((r) => r.status === 402)!;
    expect(textOf(busy)).toMatch(/channel_busy/);
    expect(await count('ledger_entries')).toBe(entries + 1);
    const stored = await a.channels.get(f.channelId);
    expect(stored?.charged).toBe(String(2n * PRICE));
    expect(stored?.last?.answer?.headers['X-Service-Receipt']).toBe(replies.find((r) => r.status === 200)!.headers?.['X-Service-Receipt']);
  });
});
