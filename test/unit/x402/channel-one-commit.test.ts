/**
 * A channel voucher's 200 in one durable commit (src/x402/channels/channel-commit.ts on the data
 * directory's commit journal): the charge, the receipt's ledger entry and the answer kept for the
 * identical retry are made durable together, with one fdatasync, and a crash at each boundary
 * leaves all of them or none. Real processor, channel log, file ledger, journal and signatures;
 * the chain is the fixture's stand-in. A crash is a process held at a point forever and the
 * service opened again on its directory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANSWER_BODY, chargedOf, createChannelCrashFixture, PRICE, textOf } from '../../helpers/channel-crash-fixture.ts';

const entriesOf = (dir: string) =>
  readFileSync(join(dir, 'ledger', 'ledger.wal'), 'utf8')
    .split('\n')
    .filter(Boolean);

describe('a channel voucher committed once', () => {
  it('charges, logs and keeps its answer with one fdatasync, and the identical retry gets that 200 byte for byte', async () => {
    const f = createChannelCrashFixture();
    const svc = await f.journaled();
    const voucher = await f.call(PRICE);
    const syncs = svc.journal.stats().syncs;
    const reply = await svc.pay(voucher);
    expect(reply.status, textOf(reply)).toBe(200);
    expect(svc.journal.stats().syncs - syncs).toBe(1);
    expect((await svc.store.get(f.channelId))?.last?.answer).not.toBeNull();
    expect(svc.ledger.head()).toMatchObject({ treeSize: 1 });
    const retry = await svc.pay(voucher);
    expect(retry.headers?.['X-Service-Receipt']).toBe(reply.headers?.['X-Service-Receipt']);
    expect(textOf(retry)).toBe(ANSWER_BODY);
    expect(f.handlerRuns()).toBe(1);
  });

  it('killed after the journal is synced, before the files: the restart has the charge, the entry and the kept 200', async () => {
    const f = createChannelCrashFixture();
    const first = await f.journaled();
    const voucher = await f.call(PRICE);
    const held = f.faults.hold('journal.files');
    void first.pay(voucher);
    await held.reached;
    // Nothing of the call is in the files yet: only the journal has it.
    expect(entriesOf(f.dir)).toHaveLength(0);
    const again = await f.journaled();
    expect(again.journal.recovery.commits).toBe(1);
    expect(entriesOf(f.dir)).toHaveLength(1);
    expect((await again.store.get(f.channelId))?.charged).toBe(String(PRICE));
    const retry = await again.pay(voucher);
    expect(retry.status).toBe(200);
    expect(chargedOf(retry)).toBe(String(PRICE));
    // Answered from the kept 200: the handler ran once, no second entry.
    expect(f.handlerRuns()).toBe(1);
    expect(again.ledger.head()).toMatchObject({ treeSize: 1 });
  });

  it('killed before the journal write: nothing is charged or logged, and the same voucher is served anew after the restart', async () => {
    const f = createChannelCrashFixture();
    const first = await f.journaled();
    const voucher = await f.call(PRICE);
    const held = f.faults.hold('journal.journal');
    void first.pay(voucher);
    await held.reached;
    const again = await f.journaled();
    expect(again.journal.recovery.commits).toBe(0);
    expect((await again.store.get(f.channelId))?.charged ?? '0').toBe('0');
    expect(again.ledger.head()).toMatchObject({ treeSize: 0 });
    const reply = await again.pay(voucher);
    expect(reply.status, textOf(reply)).toBe(200);
    expect(chargedOf(reply)).toBe(String(PRICE));
    expect(again.ledger.head()).toMatchObject({ treeSize: 1 });
  });

  it('a commit the disk refuses charges nothing: the voucher is refused, the channel is as before, no entry; the same voucher then succeeds', async () => {
    const f = createChannelCrashFixture();
    const svc = await f.journaled();
    const ok = await svc.pay(await f.call(PRICE));
    expect(ok.status).toBe(200);
    const second = await f.call(2n * PRICE);
    f.faults.fail('journal.journal', new Error('disk full (scripted)'));
    const refused = await svc.pay(second);
    expect(refused.status).toBe(503);
    expect((await svc.store.get(f.channelId))?.charged).toBe(String(PRICE));
    expect(svc.ledger.head()).toMatchObject({ treeSize: 1 });
    // Nothing was acknowledged, so the journal goes on: the identical voucher is served and charged once.
    expect(svc.ledger.failure()).toBeNull();
    const again = await svc.pay(second);
    expect(again.status, textOf(again)).toBe(200);
    expect(chargedOf(again)).toBe(String(2n * PRICE));
    expect(svc.ledger.head()).toMatchObject({ treeSize: 2 });
  });
});
