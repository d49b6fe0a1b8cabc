/**
 * The KillSwitch contract (src/operations/kill-switch.ts), one suite run against both places of its
 * state: the file in the data directory and PostgreSQL's one row (pg-kill-switch.ts), each in a
 * place of its own. Every transition appends its audit entry before the state changes, and a
 * transition whose entry cannot be written changes nothing. What only one of them does is tested
 * beside it: the state file's contents and a corrupt file in test/unit/operations/kill-switch.test.ts, one
 * stop seen by every instance in test/integration/pg-storage.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKillSwitch, type KillSwitch, type KillSwitchConfig } from '../../src/operations/kill-switch.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { openPgKillSwitch } from '../../src/operations/pg-kill-switch.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('kill-switch-stores');

/** A new place for one switch's state, and how to open the switch there (again: a restart) over `ledger`. */
const placeFor = async (kind: StoreKind) => {
  const open = await backings.placeAlone<(ledger: KillSwitchConfig['ledger']) => Promise<KillSwitch>>(kind, {
    file: (dataDir) => async (ledger) => createKillSwitch({ dataDir, ledger }),
    postgres: (db) => (ledger) => openPgKillSwitch({ db, ledger }),
  });
  return (ledger: KillSwitchConfig['ledger']) => open()(ledger);
};

const memoryLedger = (): Promise<Ledger> => createLedger({ dir: join(backings.dir(), 'ledger'), nodeStore: 'memory' });

describe.each(STORE_KINDS)('the kill switch (%s)', (kind) => {
  it('appends one audit entry per transition before the state changes, and keeps its state across a reopen', async () => {
    const ledger = await memoryLedger();
    const open = await placeFor(kind);
    const seen: boolean[] = [];
    // The switch must still read inactive while its audit entry is being made durable.
    const spy: KillSwitch = await (await placeFor(kind))({
      append: (d) => {
        seen.push(spy.isActive());
        return ledger.append(d);
      },
    });
    await spy.activate();
    expect([seen, spy.isActive()]).toEqual([[false], true]);

    const ks = await open(ledger);
    expect(ks.isActive()).toBe(false);
    const [a, b] = await Promise.all([ks.activate('maintenance'), ks.activate('again')]);
    expect([a.changed, b.changed, ks.isActive()]).toEqual([true, false, true]);
    expect(a.state).toMatchObject({ active: true, reason: 'maintenance', ledgerIndex: 1 });
    const activeState = ks.state();
    const reopened = await open(ledger);
    expect(reopened.state()).toEqual(activeState);
    const released = await reopened.release();
    expect(released).toMatchObject({ changed: true, state: { active: false, reason: null, ledgerIndex: 2 } });
    expect(await reopened.release()).toMatchObject({ changed: false });
    expect(ledger.recent(10).map((e) => (e.kind === 'audit' ? [e.index, e.event, e.reason] : null))).toEqual([
      [0, 'kill-switch.activated', undefined],
      [1, 'kill-switch.activated', 'maintenance'],
      [2, 'kill-switch.released', undefined],
    ]);
    expect(Object.keys(ledger.entry(1)!)).toEqual(['index', 'time', 'kind', 'event', 'reason', 'prevHash', 'entrySha256']);
    expect(Object.keys(ledger.entry(2)!)).toEqual(['index', 'time', 'kind', 'event', 'prevHash', 'entrySha256']);
    await Promise.all([spy.close(), ks.close(), reopened.close()]);
    await ledger.close();
  });

  it('does not change state when the audit entry cannot be written', async () => {
    const open = await placeFor(kind);
    // A closed ledger refuses appends (a ServiceError, as the ledger's faults are).
    const closed = await memoryLedger();
    await closed.close();
    const ks = await open(closed);
    await expect(ks.activate()).rejects.toMatchObject({ code: 'shutting_down' });
    expect(ks.isActive()).toBe(false);
    const again = await open(closed);
    expect(again.state()).toEqual({ active: false, since: null, reason: null, ledgerIndex: null });
    await Promise.all([ks.close(), again.close()]);
  });
});
