/**
 * `x402-intel witness serve` as an operator runs it: a child process of the real bin, listening on
 * a port it picked, printing its address and vkey (never its key), cosigning a checkpoint of the
 * log it was given, and stopping cleanly on SIGTERM with its state on disk.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addCheckpointBody } from '../../src/tlog/witness-client.ts';
import { createWitnessKeyFile } from '../../src/witness/witness-key.ts';
import { WITNESS_STATE_FILE } from '../../src/witness/witness-state.ts';
import { CLI_BIN } from '../helpers/cli-process.ts';
import { createTestLog } from '../helpers/tlog-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'witness-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('x402-intel witness serve (a process)', () => {
  it('listens, cosigns, and stops on SIGTERM with its state on disk', async () => {
    const log = createTestLog();
    log.append('a', 'b');
    const vkey = createWitnessKeyFile(join(dir, 'w.key'), 'witness.test/process');
    const child = spawn(process.execPath, [CLI_BIN, 'witness', 'serve', '--key', 'w.key', '--log', log.vkey, '--port', '0', '--data-dir', 'state'], {
      cwd: dir,
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const m = /listening (http:\/\/\S+)[\s\S]*\nvkey \S+\n/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stderr).toContain(`vkey ${vkey}`);
    // The key's secret is everything after `PRIVATE+KEY+<name>+<id>+`: its base64 may hold '+' itself
    // (the last '+'-piece alone was then a letter or two, found in any stderr: a flaky failure).
    expect(stderr).not.toContain(readFileSync(join(dir, 'w.key'), 'utf8').trim().split('+').slice(4).join('+'));
    const res = await fetch(`${url}/add-checkpoint`, { method: 'POST', body: addCheckpointBody({ oldSize: 0, proof: [], note: await log.checkpoint() }) });
    expect([res.status, (await res.text()).startsWith('\u2014 witness.test/process ')]).toEqual([200, true]);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'state', WITNESS_STATE_FILE), 'utf8')).logs['intel.example/test-log'].size).toBe(2);
  }, 120_000);
});
