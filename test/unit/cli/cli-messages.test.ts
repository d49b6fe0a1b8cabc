/**
 * What the CLI tells a newcomer when something is wrong, without --json: the service's own error
 * code and reason on any answer but 200, the command that makes a missing key file, the argument a
 * usage error is about, where the service URL comes from when it cannot be reached; and the
 * walk-through of the README run against the CLI's own help (every option the README uses is in
 * the help of its command); that the files they make stay out of git is test/unit/cli/walkthrough-ignored.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_OPTIONS } from '../../../src/cli/commands/call-command.ts';
import { parseArgs } from '../../../src/cli/cli-args.ts';
import { EXIT } from '../../../src/cli/cli-error.ts';
import { buildEndpointRequest } from '../../../src/cli/endpoint-request.ts';
import { COMMAND_NAMES, type CommandName, commandHelp, commandUsage } from '../../../src/cli/help-text.ts';
import { repositoryRoot } from '../../helpers/import-layers.ts';
import { runCliIn } from '../../helpers/cli-in-process.ts';

const ROOT = repositoryRoot(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'cli-messages-'));

const run = (argv: string[], env: Record<string, string> = {}) => runCliIn(dir, argv, env);

/** A service that answers every request with `status` and `body` (JSON when not a string). */
let reply: { status: number; body: unknown; headers?: Record<string, string> } = { status: 200, body: {} };
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('an answer other than 200 prints the service code and reason', () => {
  it('an error body: the path, the HTTP status, the code and the sentence on stderr (exit 1)', async () => {
    reply = { status: 502, body: { error: 'upstream_unavailable', message: 'The Solana RPC did not answer' } };
    const plain = await run(['preview', '/v1/epoch', '--url', url]);
    expect(plain).toMatchObject({ code: EXIT.failed, stdout: '' });
    expect(plain.stderr).toBe('x402-intel: /preview/v1/epoch answered HTTP 502 upstream_unavailable: The Solana RPC did not answer\n');
    const json = JSON.parse((await run(['preview', '/v1/epoch', '--url', url, '--json'])).stdout);
    expect(json).toEqual({ error: 'upstream_unavailable', message: 'The Solana RPC did not answer', status: 502 });
  });

  it('a 402 challenge: the x402 reason its `error` leads with, and the sentence after it', async () => {
    reply = { status: 402, body: { x402Version: 2, error: 'insufficient_funds: the payer holds 0 of 1000 units', accepts: [] } };
    const plain = await run(['preview', '/v1/epoch', '--url', url]);
    expect(plain.stderr).toBe('x402-intel: /preview/v1/epoch answered HTTP 402 insufficient_funds: the payer holds 0 of 1000 units\n');
    expect(JSON.parse((await run(['preview', 'epoch', '--url', url, '--json'])).stdout)).toMatchObject({
      error: 'insufficient_funds',
      message: 'the payer holds 0 of 1000 units',
      status: 402,
    });
    // Only in the PAYMENT-REQUIRED header, as x402 v2 also sends it.
    const header = Buffer.from(JSON.stringify({ x402Version: 2, error: 'invalid_network: not offered here' })).toString('base64');
    reply = { status: 402, body: '', headers: { 'payment-required': header } };
    expect((await run(['preview', '/v1/epoch', '--url', url])).stderr).toContain('answered HTTP 402 invalid_network: not offered here');
  });

  it('no error body: the status alone', async () => {
    reply = { status: 503, body: '<html>busy</html>' };
    expect((await run(['preview', '/v1/epoch', '--url', url])).stderr).toBe('x402-intel: /preview/v1/epoch answered HTTP 503\n');
  });

  it('a 429 of the preview says its code and status before when the next preview comes (exit 4)', async () => {
    reply = { status: 429, body: { error: 'preview_limit_reached', message: 'The free preview is used for today', retryAfterSeconds: 60 } };
    const limited = await run(['preview', '/v1/epoch', '--url', url]);
    expect(limited.code).toBe(EXIT.previewLimit);
    expect(limited.stderr).toMatch(
      /^x402-intel: \/preview\/v1\/epoch answered HTTP 429 preview_limit_reached: The free preview is used for today\.\nNext free/,
    );
  });

  it("a 429 of the request rate (not the day's preview) is an error like the rest (exit 1), not the preview limit", async () => {
    reply = { status: 429, body: { error: 'rate_limited', message: 'Too many requests from this client' }, headers: { 'retry-after': '1' } };
    const limited = await run(['preview', '/v1/epoch', '--url', url]);
    expect(limited.code).toBe(EXIT.failed);
    expect(limited.stderr).toBe('x402-intel: /preview/v1/epoch answered HTTP 429 rate_limited: Too many requests from this client\n');
  });

  it('a /health that is not 200 is said as such by localnet fund, not taken for a service without a localnet', async () => {
    reply = { status: 503, body: { error: 'shutting_down', message: 'The service is shutting down' } };
    const fund = await run(['localnet', 'fund', '0x1111111111111111111111111111111111111111', '--url', url]);
    expect(fund.code).toBe(EXIT.failed);
    expect(fund.stderr).toContain(`${url}/health answered HTTP 503 shutting_down: The service is shutting down`);
  });
});

describe('a missing key file names the command that makes one (exit 6)', () => {
  it('the default keypair, a named keypair and an EVM key file', async () => {
    const missing = await run(['call', '/v1/epoch']);
    expect(missing.code).toBe(EXIT.keyFile);
    expect(missing.stderr).toContain('does not exist');
    expect(missing.stderr).toContain('x402-intel keygen payer.json');
    expect(missing.stderr).toContain('--keypair payer.json');
    expect((await run(['call', '/v1/epoch', '--keypair', 'mine.json'])).stderr).toContain('x402-intel keygen mine.json');
    expect((await run(['call', '/v1/epoch', '--network', 'base', '--evm-key', 'b.key'])).stderr).toContain('x402-intel keygen b.key --evm');
    const fund = await run(['localnet', 'fund', '--keypair', 'mine.json', '--json']);
    expect(JSON.parse(fund.stdout)).toMatchObject({ error: 'key_file', message: expect.stringContaining('x402-intel keygen mine.json') });
  });
});

describe("a usage error names the argument it is about (exit 2) and ends with the command's usage line", () => {
  it.each([
    [['call', '/v1/epoch', 'extra'], 'unexpected argument "extra"'],
    [['call'], 'missing <path>'],
    [['preview', '/v1/epoch', 'more'], 'unexpected argument "more"'],
    [['keygen'], 'missing <file>'],
    [['keygen', 'a.json', 'b.json'], 'unexpected argument "b.json"'],
    [['verify-proof'], 'missing <ledger-index>'],
    [['verify-receipt', 'r.json', 'b.json'], 'unexpected argument "b.json"'],
    [['endpoints', 'epoch', 'smri'], 'unexpected argument "smri"'],
    [['localnet'], 'missing the subcommand: fund'],
    [['localnet', 'fnd', 'x'], 'unknown localnet subcommand "fnd"'],
    [['localnet', 'fund'], 'missing the address to fund'],
    [
      ['localnet', 'fund', '0x1111111111111111111111111111111111111111', '--keypair', 'k.json'],
      'one of <address>, --keypair, --evm-key; got <address> and --keypair',
    ],
    [['call', '/v1/epoch', '--evm'], 'call has no switch --evm'],
    [['call', '/v1/epoch', '--keypiar', 'k.json'], "call's own options: --network, --keypair"],
    [['trust', 'policy', '--witness', 'http://w.example=not-a-vkey'], '--witness 1 is neither URL=VKEY nor a witness vkey'],
    [['trust', 'polcy'], 'unknown trust subcommand "polcy"'],
    [['ledger', 'follow'], 'unknown ledger subcommand "follow"'],
  ])('%j', async (argv, said) => {
    const result = await run(argv);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toContain(said);
    const command = argv[0] as CommandName;
    expect(result.stderr.trimEnd().split('\n').slice(-2)).toEqual([
      `usage: x402-intel ${commandUsage(command)}`,
      `(x402-intel help ${command} lists its options)`,
    ]);
    const json = JSON.parse((await run([...argv, '--json'])).stdout);
    expect(json).toMatchObject({ error: 'usage', usage: `usage: x402-intel ${commandUsage(command)}` });
  });
});

describe('the service URL', () => {
  it('an unreachable service names where its URL came from and how to give another', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await run(['preview', '/v1/epoch'], { X402_INTEL_URL: `http://127.0.0.1:${port}` });
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stderr).toContain(`could not reach http://127.0.0.1:${port}/preview/v1/epoch (ECONNREFUSED)`);
    expect(result.stderr).toContain('--url <base> or $X402_INTEL_URL');
  });
});

/** The `x402-intel ...` command lines of a Markdown file's code blocks, as argv (comments cut). */
function commandLines(markdown: string): string[][] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => /^(npx )?x402-intel /.test(line))
    .map((line) => line.replace(/^npx /, '').split(/\s+/).slice(1));
}

describe('the README and docs/cli.md against the CLI', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = [...commandLines(readme), ...commandLines(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8'))];

  it('every option a documented command line uses is in the help of its command (or is an endpoint parameter)', () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const argv of lines) {
      const args = parseArgs(argv.filter((a) => !a.startsWith('$(')));
      const [command = '', path] = args.positionals;
      if (!(COMMAND_NAMES as readonly string[]).includes(command)) continue;
      const help = commandHelp(command as CommandName);
      const params = new Map<string, string>();
      for (const [name, value] of args.options) {
        if (help.includes(`--${name}`)) continue;
        if ((command === 'call' || command === 'preview') && typeof value === 'string' && !CALL_OPTIONS.includes(name as never)) params.set(name, value);
        else expect.fail(`"x402-intel ${argv.join(' ')}": --${name} is not in x402-intel help ${command}`);
      }
      if (params.size > 0) expect(() => buildEndpointRequest(path ?? '', params), argv.join(' ')).not.toThrow();
    }
  });

  it('the README says where the CLI finds the service', () => {
    expect(readme).toContain('X402_INTEL_URL');
    expect(readme).toMatch(/--url <base>/);
  });
});
