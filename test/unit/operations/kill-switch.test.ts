import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReasonBody } from '../../../src/operations/admin-server.ts';
import { createBearerCheck, resolveAdminToken } from '../../../src/operations/admin-token.ts';
import { createKillSwitch, KILL_SWITCH_FILE_NAME } from '../../../src/operations/kill-switch.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';

const root = mkdtempSync(join(tmpdir(), 'kill-switch-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${n++}`);

// Transitions, audit entries and a reopen are the switch contract's, run on the file and the
// database alike in test/integration/kill-switch-stores.test.ts; what only the file does is here.
describe('kill switch file', () => {
  it('writes its state whole into kill-switch.json, no temporary file left', async () => {
    const dataDir = fresh();
    const ledger = await createLedger({ dir: join(dataDir, 'ledger'), nodeStore: 'memory' });
    const ks = createKillSwitch({ dataDir, ledger });
    await ks.activate('maintenance');
    expect(JSON.parse(readFileSync(join(dataDir, KILL_SWITCH_FILE_NAME), 'utf8'))).toEqual(ks.state());
    expect(readdirSync(dataDir).filter((f) => f.includes('.tmp'))).toEqual([]);
    await ledger.close();
  });

  it('refuses a corrupt state file', () => {
    const dataDir = fresh();
    createKillSwitch({ dataDir, ledger: { append: () => Promise.reject(new Error('unused')) } });
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
