/**
 * The commands the CLI and the page print, run as printed (their own HOME and working directory)
 * against the real service on the embedded localnet: `keygen`'s fund and pay lines for a Solana and
 * a Base key (and the fund command a refused payment names), the storefront console's copy-paste
 * lines, `trust policy` (its file read by the offline verifier) and `ledger watch` printing a
 * payment as it lands. `ledger watch` runs as a child process (it ends on SIGINT); the others run
 * the same CLI in this process (cliHere): a child process per run (about 0.6 s of CPU to start)
 * adds only the launcher and the exit statuses as a process sees them, which cli.test.ts covers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTlogPolicy } from '../../src/witness/tlog-policy.ts';
import { createWitnessKeyFile } from '../../src/witness/witness-key.ts';
import { cliCall, cliKeySetup } from '../../web/shell.ts';
import { runCliIn } from '../helpers/cli-in-process.ts';
import { CLI_BIN } from '../helpers/cli-process.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PAID_TEST_MS = 240_000;
let t: TestService;
let work: string;
let home: string;

/** The CLI in this process, working directory `work` and home `work/home`, the service named by $X402_INTEL_URL. */
const cli = (args: readonly string[]) => runCliIn(work, [...args], { X402_INTEL_URL: t.url });

/** The `x402-intel ...` command after `label: ` in the output, as argv. */
function printed(stdout: string, label: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label}: x402-intel `));
  expect(line, `no "${label}" line in:\n${stdout}`).toBeDefined();
  return line!.slice(`${label}: x402-intel `.length).split(' ');
}

/** A shell line of `npx x402-intel ...` commands joined by `&&`, as argv lists (the page's lines need no quoting here). */
const npxCommands = (line: string): string[][] => line.split(' && ').map((c) => c.replace(/^npx x402-intel /, '').split(' '));

beforeAll(async () => {
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({}, [], { txsPerSlot: 0 });
  work = mkdtempSync(join(tmpdir(), 'x402-intel-walk-'));
  home = join(work, 'home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('what keygen prints', () => {
  it(
    'on Solana: its pay line, refused while the key holds nothing, names the fund command keygen printed; run as printed, the pay line then passes',
    async () => {
      const made = await cli(['keygen', 'walk.json']);
      expect(made.code, made.stderr).toBe(0);
      const fundLine = printed(made.stdout, 'fund it on the localnet');
      const refused = await cli(printed(made.stdout, 'pay with it'));
      expect(refused.code).toBe(1);
      const hint = refused.stderr.split('\n').find((l) => l.includes('if this payer holds no local USDC'));
      expect(hint, refused.stderr).toContain(`(a new key, or a localnet started over with --fresh), fund it: x402-intel ${fundLine.join(' ')}`);
      const fund = await cli(fundLine);
      expect(fund.code, fund.stderr).toBe(0);
      const pay = await cli(printed(made.stdout, 'pay with it'));
      expect(pay.code, pay.stderr).toBe(0);
      expect(JSON.parse(pay.stdout)).toHaveProperty('epoch');
    },
    PAID_TEST_MS,
  );

  it(
    'on Base: the fund line and then the pay line, run as printed, both exit 0',
    async () => {
      const made = await cli(['keygen', 'walk.key', '--evm']);
      expect(made.code, made.stderr).toBe(0);
      const fund = await cli(printed(made.stdout, 'fund it on the localnet'));
      expect(fund.code, fund.stderr).toBe(0);
      const pay = await cli(printed(made.stdout, 'pay with it'));
      expect(pay.code, pay.stderr).toBe(0);
      expect(JSON.parse(pay.stdout)).toHaveProperty('epoch');
    },
    PAID_TEST_MS,
  );
});

describe("the storefront console's CLI lines", () => {
  it(
    'the key setup line, then the call line, as the page builds them, pay /v1/epoch',
    async () => {
      const request = { origin: t.url, path: '/v1/epoch', query: new URLSearchParams({ rate: 'both' }) };
      for (const argv of npxCommands(cliKeySetup(request))) {
        const run = await cli(argv);
        expect(run.code, run.stderr).toBe(0);
      }
      const [call] = npxCommands(cliCall(request));
      const paid = await cli(call!);
      expect(paid.code, paid.stderr).toBe(0);
      expect(JSON.parse(paid.stdout)).toHaveProperty('epoch');
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel trust policy', () => {
  it('writes the policy of the running log with the witnesses given; the offline verifier reads it as written', async () => {
    const vkey = createWitnessKeyFile(join(work, 'w1.key'), 'witness.example.org/w1');
    const run = await cli(['trust', 'policy', '--witness', `http://127.0.0.1:8404=${vkey}`]);
    expect(run.code, run.stderr).toBe(0);
    const pubkey = await readJson(fetch(`${t.url}/trust/pubkey`));
    expect(JSON.parse(run.stdout)).toEqual({ log: pubkey.noteVerifierKey, origin: pubkey.logOrigin, witnesses: [vkey], quorum: 1 });
    const read = parseTlogPolicy(run.stdout);
    expect(read.ok && read.policy.witnesses.length).toBe(1);
    expect(run.stderr).toContain('1 of 1 witness(es) must have cosigned');
    // No witness: the file is still a policy, and the note on stderr says what it does not prove.
    const bare = await cli(['trust', 'policy']);
    expect(bare.code).toBe(0);
    expect(JSON.parse(bare.stdout)).toMatchObject({ witnesses: [], quorum: 0 });
    expect(bare.stderr).toContain('not that anyone else saw the same log');
    writeFileSync(join(work, 'policy.json'), bare.stdout);
  });
});

describe('x402-intel ledger watch', () => {
  let watcher: ChildProcess | undefined;
  afterAll(() => void watcher?.kill('SIGKILL'));

  it(
    'prints the newest entries on connect, then a payment as it is written, and stops on SIGINT with exit 0',
    async () => {
      watcher = spawn(process.execPath, [CLI_BIN, 'ledger', 'watch', '--url', t.url], { cwd: work, env: { ...process.env, HOME: home } });
      let out = '';
      let err = '';
      watcher.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      watcher.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
      const exited = new Promise<number | null>((resolve) => watcher!.once('exit', (code) => resolve(code)));
      const until = (what: () => boolean) => vi.waitUntil(what, { timeout: PAID_TEST_MS, interval: 100 });
      await until(() => err.includes('watching '));
      const before = (await readJson(fetch(`${t.url}/ledger?limit=1`))).treeSize as number;
      // walk.json was funded above.
      const pay = await cli(['call', '/v1/epoch', '--keypair', 'walk.json']);
      expect(pay.code, pay.stderr).toBe(0);
      await until(() => new RegExp(`^#${before}  \\S+  payment  /v1/epoch  \\$0\\.`, 'm').test(out));
      watcher.kill('SIGINT');
      expect(await exited).toBe(0);
    },
    PAID_TEST_MS,
  );
});
