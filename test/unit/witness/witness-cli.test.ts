/**
 * `x402-intel witness` as an operator runs it (in process): keygen writes a 0600 key file and
 * prints the vkey, never the key, and never overwrites; serve refuses a key file others can read
 * and a log key that is not one; the listener answers only POST /add-checkpoint, with JSON errors
 * for other paths, other methods and bodies past the limit.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ADD_CHECKPOINT_BYTES } from '../../../src/witness/add-checkpoint-request.ts';
import { type RunningWitness, startWitness } from '../../../src/witness/witness-program.ts';
import { runCliIn } from '../../helpers/cli-in-process.ts';
import { createTestLog } from '../../helpers/tlog-fixture.ts';

let dir: string;
let witness: RunningWitness;
const log = createTestLog();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'witness-cli-'));
  const made = await runCliIn(dir, ['witness', 'keygen', '--name', 'witness.test/cli', '--key', 'w.key', '--json']);
  expect(made.code, made.stderr).toBe(0);
  witness = await startWitness({ keyFile: join(dir, 'w.key'), logs: [log.vkey], host: '127.0.0.1', port: 0, dataDir: join(dir, 'state') });
});
afterAll(async () => {
  await witness?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('x402-intel witness', () => {
  it('keygen writes a 0600 key file, prints its vkey and not the key, and never overwrites it', async () => {
    const key = readFileSync(join(dir, 'w.key'), 'utf8');
    expect(statSync(join(dir, 'w.key')).mode & 0o777).toBe(0o600);
    expect(key.startsWith('PRIVATE+KEY+witness.test/cli+')).toBe(true);
    expect(witness.vkey).toMatch(/^witness\.test\/cli\+[0-9a-f]{8}\+B[A-P]/);
    const again = await runCliIn(dir, ['witness', 'keygen', '--name', 'witness.test/cli', '--key', 'w.key']);
    expect(again.code).toBe(6);
    expect(readFileSync(join(dir, 'w.key'), 'utf8')).toBe(key);
    const secret = key.trim().split('+').slice(4).join('+');
    const shown = await runCliIn(dir, ['witness', 'keygen', '--name', 'witness.test/two', '--key', 'w2.key']);
    expect(shown.stdout + shown.stderr).not.toContain(readFileSync(join(dir, 'w2.key'), 'utf8').trim().split('+').slice(4).join('+'));
    expect(shown.stdout).toMatch(/^vkey witness\.test\/two\+/m);
    expect(secret.length).toBeGreaterThan(40);
  });

  it('serve refuses a key file others can read (exit 6), a missing --log and a log key that is not one (exit 2, 1)', async () => {
    chmodSync(join(dir, 'w2.key'), 0o644);
    const loose = await runCliIn(dir, ['witness', 'serve', '--key', 'w2.key', '--log', log.vkey]);
    expect([loose.code, loose.stderr]).toEqual([6, expect.stringContaining('chmod 600')]);
    chmodSync(join(dir, 'w2.key'), 0o600);
    expect((await runCliIn(dir, ['witness', 'serve', '--key', 'w2.key'])).code).toBe(2);
    const badLog = await runCliIn(dir, ['witness', 'serve', '--key', 'w2.key', '--log', 'not-a-vkey', '--port', '0']);
    expect([badLog.code, badLog.stderr]).toEqual([1, expect.stringContaining('the witness did not start')]);
  });

  it('answers POST /add-checkpoint only; other paths, methods and oversized bodies get JSON errors', async () => {
    const other = await fetch(`${witness.url}/checkpoint`);
    expect([other.status, ((await other.json()) as { error: string }).error]).toEqual([404, 'not_found']);
    const get = await fetch(`${witness.url}/add-checkpoint`);
    expect([get.status, ((await get.json()) as { error: string }).error]).toEqual([405, 'method_not_allowed']);
    const big = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'x'.repeat(MAX_ADD_CHECKPOINT_BYTES + 1) });
    expect([big.status, ((await big.json()) as { error: string }).error]).toEqual([413, 'payload_too_large']);
    const junk = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'old 0\n' });
    expect([junk.status, ((await junk.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
    log.append('a');
    const ok = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: `old 0\n\n${await log.checkpoint()}` });
    expect([ok.status, (await ok.text()).startsWith('\u2014 witness.test/cli ')]).toEqual([200, true]);
  });
});
