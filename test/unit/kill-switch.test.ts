import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReasonBody } from '../../src/http/admin-server.ts';
import { createBearerCheck, resolveAdminToken } from '../../src/http/admin-token.ts';
import { createKillSwitch, KILL_SWITCH_FILE_NAME } from '../../src/trust/kill-switch.ts';
import { createLedger } from '../../src/trust/ledger.ts';

const root = mkdtempSync(join(tmpdir(), 'kill-switch-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${n++}`);

describe('kill switch', () => {
  it('appends one audit entry per transition before the state changes, and survives a reopen', async () => {
    const dataDir = fresh();
    const ledger = await createLedger({ dir: join(dataDir, 'ledger'), nodeStore: 'memory' });
    const ks = createKillSwitch({ dataDir, ledger });
    expect(ks.isActive()).toBe(false);
    const seen: boolean[] = [];
    // The switch must still read inactive while its audit entry is being made durable.
    const spy = createKillSwitch({
      dataDir: fresh(),
      ledger: {
        append: (d) => {
          seen.push(spy.isActive());
          return ledger.append(d);
        },
      },
    });
    await spy.activate();
    expect([seen, spy.isActive()]).toEqual([[false], true]);

    const [a, b] = await Promise.all([ks.activate('maintenance'), ks.activate('again')]);
    expect([a.changed, b.changed, ks.isActive()]).toEqual([true, false, true]);
    expect(a.state).toMatchObject({ active: true, reason: 'maintenance' });
    const activeState = ks.state();
    const reopened = createKillSwitch({ dataDir, ledger });
    expect(reopened.state()).toEqual(activeState);
    expect(JSON.parse(readFileSync(join(dataDir, KILL_SWITCH_FILE_NAME), 'utf8'))).toEqual(activeState);
    expect(readdirSync(dataDir).filter((f) => f.includes('.tmp'))).toEqual([]);
    const released = await reopened.release();
    expect(released).toMatchObject({ changed: true, state: { active: false, reason: null } });
    expect(ledger.recent(10).map((e) => (e.kind === 'audit' ? [e.index, e.event, e.reason] : null))).toEqual([
      [0, 'kill-switch.activated', undefined],
      [1, 'kill-switch.activated', 'maintenance'],
      [2, 'kill-switch.released', undefined],
    ]);
    expect(Object.keys(ledger.entry(1)!)).toEqual(['index', 'time', 'kind', 'event', 'reason', 'prevHash', 'entrySha256']);
    expect(Object.keys(ledger.entry(2)!)).toEqual(['index', 'time', 'kind', 'event', 'prevHash', 'entrySha256']);
    await ledger.close();
  });

  it('does not change state when the audit entry cannot be written, and refuses a corrupt state file', async () => {
    const dataDir = fresh();
    const ks = createKillSwitch({ dataDir, ledger: { append: () => Promise.reject(new Error('disk full')) } });
    await expect(ks.activate()).rejects.toThrow('disk full');
    expect(ks.isActive()).toBe(false);
    writeFileSync(join(dataDir, KILL_SWITCH_FILE_NAME), '{"active":"yes"}');
    expect(() => createKillSwitch({ dataDir, ledger: { append: () => Promise.reject(new Error('unused')) } })).toThrow(/not valid/);
  });
});

describe('admin token and body', () => {
  it('generates a 0600 token file once and reuses it; a configured token must be long enough', () => {
    const dataDir = fresh();
    const first = resolveAdminToken(null, dataDir);
    expect(first.created).toBe(true);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(resolveAdminToken(null, dataDir)).toEqual({ ...first, created: false });
    expect(resolveAdminToken('x'.repeat(16), dataDir)).toEqual({ token: 'x'.repeat(16), path: null, created: false });
    expect(() => resolveAdminToken('short', dataDir)).toThrow(/at least 16/);
  });

  it('checks bearer headers exactly', () => {
    const check = createBearerCheck('s3cret-token-0123456789');
    expect(check('Bearer s3cret-token-0123456789')).toBe(true);
    expect(check('bearer s3cret-token-0123456789')).toBe(true);
    for (const bad of [
      undefined,
      '',
      'Bearer',
      'Bearer s3cret-token-012345678',
      'Bearer s3cret-token-01234567890',
      'Basic s3cret-token-0123456789',
      's3cret-token-0123456789',
    ]) {
      expect(check(bad)).toBe(false);
    }
  });

  it('accepts an empty body or {reason} only', () => {
    expect(parseReasonBody(null)).toEqual({ ok: true, reason: undefined });
    expect(parseReasonBody(Buffer.from(' {"reason":"upstream outage"} '))).toEqual({ ok: true, reason: 'upstream outage' });
    for (const bad of [
      '{',
      '[]',
      '"x"',
      '{"reason":1}',
      '{"reason":""}',
      `{"reason":"${'r'.repeat(257)}"}`,
      '{"reason":"a\\nb"}',
      '{"reason":"x","who":"me"}',
    ]) {
      const r = parseReasonBody(Buffer.from(bad));
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.reply.status).toBe(400);
    }
    expect(parseReasonBody(Buffer.from(`{"reason":"${'r'.repeat(256)}"}`)).ok).toBe(true);
  });
});
