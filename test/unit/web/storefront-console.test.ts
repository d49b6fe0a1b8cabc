/**
 * The storefront page's pure logic, run in Node: shell quoting of the commands it shows (checked
 * by a real shell), decoding of a 402 challenge, the words for a refused preview, and the live
 * ledger connection's reconnect, backoff and polling fallback (with a fake socket and timers).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { chainName, decodeChallenge } from '../../../web/challenge.ts';
import { duration, shortHash } from '../../../web/format.ts';
import { backoffMs, connectLedgerFeed, type FeedDeps, type FeedSocket, POLL_AFTER_FAILURES, POLL_INTERVAL_MS } from '../../../web/ledger-feed-client.ts';
import { describePreviewFailure } from '../../../web/preview-result.ts';
import { cliCall, cliKeySetup, paidCurl, requestUrl, shellQuote, termsCurl } from '../../../web/shell.ts';

describe('shell quoting', () => {
  it.each(['http://h:1/v1/smri?mint=abc&x=1', "it's", 'a b', '$HOME', '`id`', "'", '', 'plain-word_1.2'])('%j reaches the program unchanged', (word) => {
    const echoed = execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`]).toString();
    expect(echoed).toBe(word);
  });

  it('builds the commands around the quoted URL, and the CLI call from path and parameters', () => {
    const request = { origin: 'http://127.0.0.1:8402', path: '/v1/decision', query: new URLSearchParams({ mint: 'Dez', action: "buy it's" }) };
    const url = requestUrl(request);
    expect(url).toBe('http://127.0.0.1:8402/v1/decision?mint=Dez&action=buy+it%27s');
    expect(termsCurl(url)).toBe(`curl -i '${url}'`);
    expect(paidCurl(url)).toBe(`curl -sS -D - -H "PAYMENT-SIGNATURE: $PAYMENT" '${url}'`);
    expect(cliCall(request)).toBe(`npx x402-intel call /v1/decision --mint Dez --action 'buy it'\\''s' --keypair payer.json --url http://127.0.0.1:8402`);
    expect(cliCall({ ...request, path: '/v1/epoch', query: new URLSearchParams() })).toBe(
      'npx x402-intel call /v1/epoch --keypair payer.json --url http://127.0.0.1:8402',
    );
    expect(cliKeySetup(request)).toBe('npx x402-intel keygen payer.json && npx x402-intel localnet fund --keypair payer.json --url http://127.0.0.1:8402');
    // What the CLI receives, as a shell splits the line.
    const argv = execFileSync('sh', ['-c', `printf '%s\\n' ${cliCall(request).slice('npx '.length)}`])
      .toString()
      .trimEnd()
      .split('\n');
    expect(argv).toEqual([
      'x402-intel',
      'call',
      '/v1/decision',
      '--mint',
      'Dez',
      '--action',
      "buy it's",
      '--keypair',
      'payer.json',
      '--url',
      'http://127.0.0.1:8402',
    ]);
  });
});

describe('402 challenge decoding', () => {
  const challenge = {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: 'http://h/v1/smri?mint=x', mimeType: 'application/json' },
    accepts: [
      {
        scheme: 'exact',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: '10000',
        payTo: 'PayToSol',
        maxTimeoutSeconds: 60,
        asset: 'MintSol',
        extra: {},
      },
      { scheme: 'exact', network: 'eip155:8453', amount: '28000', payTo: '0xPay', maxTimeoutSeconds: 60, asset: '0xAsset', extra: { name: 'USD Coin' } },
    ],
  };
  const header = Buffer.from(JSON.stringify(challenge)).toString('base64');

  it('reads both networks with amounts in dollars', () => {
    const decoded = decodeChallenge(header);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.challenge.resource).toBe('http://h/v1/smri?mint=x');
    expect(decoded.challenge.options).toEqual([
      expect.objectContaining({ chain: 'Solana', usd: '$0.01', amount: '10000', payTo: 'PayToSol', asset: 'MintSol', maxTimeoutSeconds: 60 }),
      expect.objectContaining({ chain: 'Base', usd: '$0.028', payTo: '0xPay', asset: '0xAsset' }),
    ]);
  });

  it('says why a header cannot be read', () => {
    expect(decodeChallenge(null)).toEqual({ ok: false, reason: 'the answer has no PAYMENT-REQUIRED header' });
    expect(decodeChallenge('%%%')).toMatchObject({ ok: false, reason: 'PAYMENT-REQUIRED is not base64 of JSON' });
    expect(decodeChallenge(Buffer.from('{"x":1}').toString('base64'))).toMatchObject({ ok: false, reason: 'PAYMENT-REQUIRED has no accepts list' });
    expect(chainName('eip155:1')).toBe('eip155:1');
  });
});

describe('refused previews', () => {
  it('explains the daily limit from the body, Retry-After and the next time, and points to paying', () => {
    const body = {
      error: 'preview_limit_reached',
      message: 'one free preview per client per UTC day',
      retryAfterSeconds: 11_520,
      nextPreviewAt: '2026-11-25T00:00:00Z',
    };
    const f = describePreviewFailure(429, body, '11520', (iso) => `at ${iso}`);
    expect(f.kind).toBe('limit');
    expect(f.nextPreviewAt).toBe('2026-11-25T00:00:00Z');
    expect(f.lines.join('\n')).toContain('one free preview per client per UTC day');
    expect(f.lines.join('\n')).toContain('Next free preview: at 2026-11-25T00:00:00Z (in 3 h 12 min; Retry-After: 11520 s).');
    expect(f.lines.join('\n')).toMatch(/pay for this call/);
    // Without the body's figures the header still gives the wait.
    expect(describePreviewFailure(429, null, '90').lines.join(' ')).toContain('in 1 min 30 s');
  });

  it("names the parameter of a 400 and carries the service's reason", () => {
    const f = describePreviewFailure(400, { error: 'invalid_parameter', param: 'mint', message: 'mint is not a base58 address of 32 bytes' }, null);
    expect(f).toEqual({ kind: 'parameter', title: 'Parameter "mint" is not accepted', lines: ['mint is not a base58 address of 32 bytes'], param: 'mint' });
  });

  it('reports other statuses with their message', () => {
    expect(describePreviewFailure(503, { error: 'service_stopped', message: 'paid calls are stopped by the operator' }, null)).toMatchObject({
      kind: 'error',
      title: 'The service is not taking calls now',
      lines: ['paid calls are stopped by the operator'],
    });
    expect(describePreviewFailure(502, null, null).lines).toEqual(['No details were given.']);
  });

  it('formats durations and hashes', () => {
    expect([duration(0), duration(59), duration(61), duration(3600), duration(90_061)]).toEqual(['0 s', '59 s', '1 min 1 s', '1 h 0 min', '1 d 1 h']);
    expect(shortHash('a'.repeat(64))).toBe(`${'a'.repeat(8)}…aaaa`);
  });
});

/** A scripted browser: sockets the test opens and closes, timers it fires, /ledger answers. */
function fakeBrowser(socketsAvailable = true) {
  const sockets: FeedSocket[] = [];
  const timers: { fn: () => void; ms: number; id: number }[] = [];
  let nextId = 1;
  const polls: string[] = [];
  const deps: FeedDeps = {
    socketUrl: 'ws://h/ledger/live',
    pollUrl: '/ledger?limit=20',
    openSocket: socketsAvailable
      ? () => {
          const s: FeedSocket = { onopen: null, onmessage: null, onclose: null, close: () => s.onclose?.({}) };
          sockets.push(s);
          return s;
        }
      : null,
    fetchJson: async (url) => {
      polls.push(url);
      return {
        treeSize: 1,
        merkleRootSha256: 'r',
        chainHeadSha256: 'c',
        entries: [{ index: 0, time: 't', kind: 'audit', event: 'e', prevHash: 'p', entrySha256: 'h' }],
      };
    },
    setTimer: (fn, ms) => {
      timers.push({ fn, ms, id: nextId });
      return nextId++;
    },
    clearTimer: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
  };
  const fire = () => timers.shift()!.fn();
  return { deps, sockets, timers, polls, fire };
}

describe('live ledger connection', () => {
  it('backs off exponentially up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('delivers messages, reconnects after a drop, polls after repeated failures and stops polling once live', async () => {
    const b = fakeBrowser();
    const seen: string[] = [];
    const stop = connectLedgerFeed(b.deps, {
      entry: (e) => seen.push(`entry ${e.index}`),
      checkpoint: (c) => seen.push(`checkpoint ${c.treeSize}`),
      state: (s) => seen.push(s.mode === 'retrying' ? `retry ${s.inMs} ${s.polling}` : s.mode),
    });
    b.sockets[0]!.onopen!({});
    b.sockets[0]!.onmessage!({ data: '{"type":"checkpoint","treeSize":3,"rootSha256":"r","chainHead":"c"}' });
    b.sockets[0]!.onmessage!({ data: '{"type":"entry","entry":{"index":2,"time":"t","kind":"payment","prevHash":"p","entrySha256":"h"}}' });
    b.sockets[0]!.onmessage!({ data: 'not json' });
    expect(seen).toEqual(['connecting', 'live', 'checkpoint 3', 'entry 2']);
    // Dropped after being open: the first retry is quick.
    b.sockets[0]!.onclose!({});
    expect(seen.at(-1)).toBe('retry 1000 false');
    for (let i = 1; i < POLL_AFTER_FAILURES; i++) {
      b.fire();
      b.sockets[i]!.onclose!({});
    }
    expect(seen.at(-1)).toBe(`retry ${backoffMs(POLL_AFTER_FAILURES)} true`);
    await new Promise((r) => setImmediate(r));
    expect(b.polls).toEqual(['/ledger?limit=20']);
    expect(seen).toContain('entry 0');
    expect(b.timers.map((t) => t.ms).sort()).toEqual([POLL_INTERVAL_MS, backoffMs(POLL_AFTER_FAILURES)].sort());
    // The reconnect timer fires and the socket opens: polling stops.
    b.fire();
    b.sockets.at(-1)!.onopen!({});
    expect(seen.at(-1)).toBe('live');
    expect(b.timers).toEqual([]);
    stop();
    expect(seen.at(-1)).toBe('live');
  });

  it('polls at once when the browser has no WebSocket', async () => {
    const b = fakeBrowser(false);
    const states: string[] = [];
    connectLedgerFeed(b.deps, { entry: () => {}, checkpoint: () => {}, state: (s) => states.push(s.mode === 'retrying' ? `polling ${s.polling}` : s.mode) });
    await new Promise((r) => setImmediate(r));
    expect(states).toEqual(['polling true']);
    expect(b.polls.length).toBe(1);
    expect(b.timers.map((t) => t.ms)).toEqual([POLL_INTERVAL_MS]);
  });
});
