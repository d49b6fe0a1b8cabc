/**
 * The CLI as a program: every failure maps to its documented exit status (and, with --json, to one
 * error document), key files open to group or others are refused without a word of the key, and
 * the service's answers (error bodies, the preview limit) become the sentences and statuses the
 * docs promise. Runs in-process with captured streams; the child-process runs are in
 * test/integration/cli.test.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, EXIT, toCliError } from '../../../src/cli/cli-error.ts';
import { buildEndpointRequest } from '../../../src/cli/endpoint-request.ts';
import { EXIT_STATUSES } from '../../../src/cli/help-text.ts';
import { DEFAULT_KEYPAIR_PATH, loadPayerKey, payerAddress } from '../../../src/cli/payer-keys.ts';
import { formatWait, previewLimitError } from '../../../src/cli/commands/preview-command.ts';
import { receiptStem, saveReceipt } from '../../../src/cli/receipt-files.ts';
import { serviceError } from '../../../src/cli/service-http.ts';
import { ConfigError } from '../../../src/errors.ts';
import { runCliIn } from '../../helpers/cli-in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cli-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Solana CLI keypair file (64-byte JSON array) with `mode`; returns its path and the secret's JSON text. */
function keypairFile(name: string, mode: number): { path: string; text: string } {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const text = JSON.stringify([...Buffer.from(jwk.d!, 'base64url'), ...Buffer.from(jwk.x!, 'base64url')]);
  const path = join(dir, name);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return { path, text };
}

const run = (argv: string[], env: Record<string, string> = {}) => runCliIn(dir, argv, env);

const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers(headers),
  bytes: new TextEncoder().encode(JSON.stringify(json)),
  json,
});

describe('exit statuses', () => {
  it('maps each kind of failure to its status', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    expect(toCliError(refused, 'http://127.0.0.1:1/health')).toMatchObject({
      exit: EXIT.unreachable,
      code: 'unreachable',
      message: 'could not reach http://127.0.0.1:1/health (ECONNREFUSED)',
    });
    expect(toCliError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')).exit).toBe(EXIT.unreachable);
    expect(toCliError(new Error('wrapped', { cause: refused })).exit).toBe(EXIT.unreachable);
    expect(toCliError(new ConfigError(['Solana keypair file /k does not exist'])).exit).toBe(EXIT.keyFile);
    expect(toCliError(new Error('anything else'))).toMatchObject({ exit: EXIT.failed, code: 'failed' });
    const expected = new CliError('price_above_max', 'no', EXIT.priceRefused);
    expect(toCliError(expected)).toBe(expected);
    expect(Object.values(EXIT)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(EXIT_STATUSES.map(([status]) => status)).toEqual(Object.values(EXIT));
  });

  it('a service error body keeps its code, sentence, status and parameter (exit 1)', () => {
    const err = serviceError(answer(400, { error: 'invalid_parameter', message: 'mint is not a base58 address of 32 bytes', param: 'mint' }), '/v1/smri');
    expect(err).toMatchObject({
      exit: EXIT.failed,
      code: 'invalid_parameter',
      message: 'mint is not a base58 address of 32 bytes',
      details: { status: 400, param: 'mint' },
    });
    expect(serviceError(answer(502, 'not json'), '/v1/smri')).toMatchObject({ code: 'http_502', message: '/v1/smri answered HTTP 502' });
  });

  it('usage errors exit 2; with --json the error is one document on stdout and stderr stays empty', async () => {
    expect((await run([])).code).toBe(EXIT.usage);
    const unknown = await run(['frobnicate', '--json']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toBe('');
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: 'usage', message: expect.stringContaining('unknown command "frobnicate"') });
    const plain = await run(['verify-proof', 'minus-one']);
    expect(plain).toMatchObject({ code: EXIT.usage, stdout: '' });
    expect(plain.stderr).toContain('x402-intel: the ledger index must be a non-negative integer');
    expect((await run(['endpoints', '--rate', 'x'])).stderr).toContain('endpoints has no option --rate');
  });

  it('help and version exit 0; the help documents every exit status', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(EXIT.ok);
    for (const status of Object.values(EXIT)) expect(help.stdout).toMatch(new RegExp(`^  ${status}  `, 'm'));
    expect((await run(['help', 'call'])).stdout).toContain('--max-price <usd>');
    expect((await run(['call', '--help'])).stdout).toContain('Usage: x402-intel call');
    expect(JSON.parse((await run(['--version', '--json'])).stdout)).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});

describe('key files', () => {
  it('reads a 0600 Solana keypair file into its address', async () => {
    const { path } = keypairFile('good.json', 0o600);
    const key = await loadPayerKey({ network: 'solana', keypair: path, home: dir, cwd: dir });
    expect(payerAddress(key)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it('refuses a keypair readable by group or others with exit 6, naming chmod 600 and never the key', async () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660]) {
      const { path, text } = keypairFile(`loose-${mode.toString(8)}.json`, mode);
      const result = await run(['call', '/v1/epoch', '--keypair', path, '--url', 'http://127.0.0.1:9', '--json']);
      expect(result.code).toBe(EXIT.keyFile);
      const doc = JSON.parse(result.stdout);
      expect(doc).toMatchObject({ error: 'key_file', message: expect.stringContaining('0600 required): chmod 600 it') });
      const secretNumbers = (JSON.parse(text) as number[]).slice(0, 32).join(',');
      expect(result.stdout).not.toContain(secretNumbers);
    }
  });

  it('refuses a missing default keypair, a malformed one and a mismatched one (exit 6)', async () => {
    mkdirSync(join(dir, 'home'), { recursive: true });
    const missing = await run(['call', '/v1/epoch']);
    expect(missing.code).toBe(EXIT.keyFile);
    expect(missing.stderr).toContain(`${join(dir, 'home', DEFAULT_KEYPAIR_PATH)} does not exist`);
    writeFileSync(join(dir, 'short.json'), '[1,2,3]', { mode: 0o600 });
    expect((await run(['call', '/v1/epoch', '--keypair', 'short.json'])).stderr).toContain('does not hold a JSON array of 64 bytes');
    const { path, text } = keypairFile('mismatch.json', 0o600);
    const bytes = JSON.parse(text) as number[];
    bytes[40] = bytes[40]! ^ 1;
    writeFileSync(path, JSON.stringify(bytes));
    const mismatch = await run(['call', '/v1/epoch', '--keypair', path]);
    expect(mismatch.code).toBe(EXIT.keyFile);
    expect(mismatch.stderr).toContain('its public key does not match its secret key');
  });

  it('an EVM key file follows the same rule; --network base without --evm-key is a usage error', async () => {
    const path = join(dir, 'base.key');
    writeFileSync(path, `0x${'ab'.repeat(32)}\n`, { mode: 0o644 });
    chmodSync(path, 0o644);
    const loose = await run(['call', '/v1/epoch', '--network', 'base', '--evm-key', path]);
    expect(loose.code).toBe(EXIT.keyFile);
    expect(loose.stderr).not.toContain('ab'.repeat(32));
    expect((await run(['call', '/v1/epoch', '--network', 'base'])).code).toBe(EXIT.usage);
    expect((await run(['call', '/v1/epoch', '--network', 'ethereum'])).code).toBe(EXIT.usage);
  });
});

describe('preview limit and receipts on disk', () => {
  it('a 429 becomes exit 4 with when the next preview comes and the paid command instead', () => {
    const req = buildEndpointRequest('/v1/epoch', new Map([['rate', 'alt']]));
    const body = {
      error: 'preview_limit_reached',
      message: 'The free preview of /v1/epoch is used for today',
      retryAfterSeconds: 3725,
      nextPreviewAt: '2026-11-25T00:00:00.000Z',
    };
    const err = previewLimitError(answer(429, body, { 'retry-after': '3725' }), req);
    expect(err.exit).toBe(EXIT.previewLimit);
    expect(err.message).toBe(
      'The free preview of /v1/epoch is used for today.\nNext free preview at 2026-11-25T00:00:00.000Z (in 1h 2m). To pay for this call now: x402-intel call /v1/epoch --rate alt',
    );
    expect(err.details).toMatchObject({ retryAfterSeconds: 3725, nextPreviewAt: '2026-11-25T00:00:00.000Z' });
    expect(previewLimitError(answer(429, {}, { 'retry-after': '45' }), req).message).toBe(
      'Next free preview later (in 45s). To pay for this call now: x402-intel call /v1/epoch --rate alt',
    );
    expect([formatWait(0), formatWait(59.2), formatWait(61), formatWait(7200)]).toEqual(['now', '1m 0s', '1m 1s', '2h 0m']);
  });

  it('names receipts by ledger index and endpoint and never overwrites one', async () => {
    expect(receiptStem({ ledgerIndex: 42, endpoint: '/v1/lending/markets' })).toBe('000042-v1-lending-markets');
    expect(receiptStem({ endpoint: '../../etc' })).toBe('unindexed-etc');
    const text = JSON.stringify({ ledgerIndex: 7, endpoint: '/v1/epoch' });
    const out = join(dir, 'receipts');
    const first = await saveReceipt(out, { text, receipt: JSON.parse(text) }, new Uint8Array([1, 2]));
    const second = await saveReceipt(out, { text, receipt: JSON.parse(text) }, new Uint8Array([3]));
    expect(first.receiptFile).toBe(join(out, '000007-v1-epoch.receipt.json'));
    expect(second.receiptFile).toBe(join(out, '000007-v1-epoch-2.receipt.json'));
    expect(readFileSync(first.bodyFile)).toEqual(Buffer.from([1, 2]));
    expect(readFileSync(first.receiptFile, 'utf8')).toBe(`${text}\n`);
  });
});

describe('keygen', () => {
  it('writes a 0600 Solana keypair the payer loader reads, prints the address and never the key, and never overwrites', async () => {
    const made = await run(['keygen', 'new-payer.json', '--json']);
    expect(made.code).toBe(EXIT.ok);
    const doc = JSON.parse(made.stdout);
    const path = join(dir, 'new-payer.json');
    expect(doc).toMatchObject({ file: path, network: 'solana' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const bytes = JSON.parse(readFileSync(path, 'utf8')) as number[];
    expect(bytes).toHaveLength(64);
    expect(made.stdout + made.stderr).not.toContain(JSON.stringify(bytes.slice(0, 8)).slice(1, -1));
    expect(payerAddress(await loadPayerKey({ network: 'solana', keypair: path, home: dir, cwd: dir }))).toBe(doc.address);
    const before = readFileSync(path, 'utf8');
    const again = await run(['keygen', 'new-payer.json']);
    expect(again.code).toBe(EXIT.keyFile);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('--evm writes a Base key file and prints its 0x address', async () => {
    const made = await run(['keygen', 'new-base.key', '--evm', '--json']);
    expect(made.code).toBe(EXIT.ok);
    const doc = JSON.parse(made.stdout);
    expect(doc).toMatchObject({ network: 'base' });
    expect(doc.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(statSync(join(dir, 'new-base.key')).mode & 0o777).toBe(0o600);
    expect(made.stdout).not.toContain(readFileSync(join(dir, 'new-base.key'), 'utf8').trim());
    expect((await run(['keygen'])).code).toBe(EXIT.usage);
  });
});
