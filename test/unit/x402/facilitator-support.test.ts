/**
 * Start-up against a facilitator that is not there or not right: a ConfigError (exit 2) that
 * names the URL fetched and why it failed (was only "fatal: fetch failed").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.ts';
import { fetchFacilitatorSupport } from '../../../src/x402/exact-evm/evm-facilitator-settler.ts';

let server: Server;
let base = '';
let closedPort = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/500/supported') return void res.writeHead(500).end('boom');
    if (req.url === '/html/supported') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    if (req.url === '/hang/supported') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function problemOf(url: string, timeoutMs?: number): Promise<string> {
  const err = await fetchFacilitatorSupport(url, timeoutMs).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.join('\n');
}

describe('facilitator /supported at start-up', () => {
  it('reads the kinds of a working facilitator', async () => {
    expect((await fetchFacilitatorSupport(`${base}/ok/`)).kinds).toHaveLength(1);
  });

  it('names the URL and the system error when nothing listens', async () => {
    const problem = await problemOf(`http://127.0.0.1:${closedPort}`);
    expect(problem).toContain(`GET http://127.0.0.1:${closedPort}/supported`);
    expect(problem).toContain('ECONNREFUSED');
    expect(problem).toContain('--facilitator-url');
  });

  it('names an HTTP error, an answer that is not the x402 shape, and a time-out', async () => {
    expect(await problemOf(`${base}/500`)).toContain('HTTP 500');
    expect(await problemOf(`${base}/html`)).toContain('kinds[]');
    expect(await problemOf(`${base}/hang`, 200)).toContain('no answer within 200 ms');
  });
});
