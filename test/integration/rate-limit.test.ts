/**
 * Per-client limits on the real service: a client that has used its burst gets 429 `rate_limited`
 * with Retry-After on every free endpoint (documents, ledger, 402 challenges, MCP, previews),
 * a header that is no payment for the route does not lift it, and behind a trusted proxy the forwarded client
 * has its own bucket. The service's clock is pinned, so no token refills during the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
let t: TestService;

beforeAll(async () => {
  const pinned = new Date('2026-11-24T12:00:00Z');
  t = await startTestService({ now: () => pinned }, ['--free-rate-per-second', '1', '--free-burst', '3', '--trusted-proxies', '127.0.0.1']);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const as = (client: string) => ({ 'X-Forwarded-For': client });

describe('free requests per client', () => {
  it('a burst is served, then every free endpoint answers 429 with Retry-After; other clients are not affected, a junk payment header lifts nothing', async () => {
    const me = as('198.51.100.7');
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/health`, { headers: me })).status).toBe(200);
    const refused = await fetch(`${t.url}/health`, { headers: me });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await readJson(refused)).toMatchObject({ error: 'rate_limited', retryAfterSeconds: 1 });
    for (const path of ['/ledger', '/trust/checkpoint', `/v1/smri?mint=${BONK}`, `/preview/v1/smri?mint=${BONK}`, '/openapi.json'])
      expect((await fetch(`${t.url}${path}`, { headers: me })).status, path).toBe(429);
    const mcp = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...me, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(mcp.status).toBe(429);
    // A header that is no payment for the route lifts nothing (a matching payment is limited by its own outcome).
    const junk = await fetch(`${t.url}/v1/smri?mint=${BONK}`, { headers: { ...me, 'PAYMENT-SIGNATURE': 'not-a-payment' } });
    expect(junk.status).toBe(429);
    // Another client behind the same trusted proxy has its own bucket.
    expect((await fetch(`${t.url}/health`, { headers: as('198.51.100.8') })).status).toBe(200);
    // A forged hop left of the real client changes nothing.
    expect((await fetch(`${t.url}/health`, { headers: as('203.0.113.1, 198.51.100.7') })).status).toBe(429);
  });
});
