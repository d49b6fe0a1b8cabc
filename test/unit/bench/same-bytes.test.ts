/**
 * The same-bytes ceiling of the HTTP benchmark writes what it captured, exactly: a reply captured
 * from it is the reply it was given (status line, headers in order, body), and the ratios against
 * it come out of the same round as the others.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { captureReply } from '../../../bench/http/challenge-checks.ts';
import { roundRatios } from '../../../bench/http/challenge-ratios.ts';
import { type CapturedReply, PEER_PATH_SUFFIX, startSameBytes } from '../../../bench/http/hello-server.ts';

const REPLY: CapturedReply = {
  statusLine: '402 Payment Required',
  headers: [
    ['Access-Control-Allow-Origin', '*'],
    ['Content-Type', 'application/json'],
    ['PAYMENT-REQUIRED', Buffer.from('{"x402Version":2}').toString('base64')],
  ],
  body: `{"x402Version":2,"error":"Payment required","pad":"${'é'.repeat(3000)}"}`,
};

const closers: Array<() => void> = [];
afterAll(() => {
  for (const close of closers) close();
});

describe('same-bytes ceiling', () => {
  it('writes back exactly the reply it was given', async () => {
    const server = await startSameBytes('127.0.0.1', 0, { '/402': REPLY });
    closers.push(server.close);
    const again = await captureReply(`http://127.0.0.1:${server.port}/402`);
    expect(again).toEqual(REPLY);
    // The peer-address variant reads the address first, then writes the very same bytes.
    expect(await captureReply(`http://127.0.0.1:${server.port}/402${PEER_PATH_SUFFIX}`)).toEqual(REPLY);
  });

  it('gives the ceiling ratios of a round', () => {
    const m = (rps: number, cpuUsPerRequest: number) => ({ tool: 'wrk' as const, requests: rps, rps, p50Ms: 1, p99Ms: 2, cpuUsPerRequest });
    const r = roundRatios({ hello: m(40_000, 10), bytes402: m(20_000, 20), bytes400: m(32_000, 12), challenge402: m(15_000, 30), invalid400: m(16_000, 24) });
    expect([r.bytes402VsHello, r.bytes400VsHello, r.challenge402VsBytes, r.invalid400VsBytes]).toEqual([0.5, 0.8, 0.75, 0.5]);
    expect([r.cpu.bytes402VsHello, r.cpu.challenge402VsBytes]).toEqual([0.5, 0.667]);
  });

  it('gives the ratios against the ceiling that also reads the peer address', () => {
    const m = (rps: number, cpuUsPerRequest: number) => ({ tool: 'wrk' as const, requests: rps, rps, p50Ms: 1, p99Ms: 2, cpuUsPerRequest });
    const r = roundRatios({ hello: m(40_000, 10), peer402: m(30_000, 16), peer400: m(36_000, 12), challenge402: m(15_000, 32), invalid400: m(18_000, 24) });
    expect([r.peer402VsHello, r.peer400VsHello, r.challenge402VsPeer, r.invalid400VsPeer]).toEqual([0.75, 0.9, 0.5, 0.5]);
    expect([r.cpu.peer402VsHello, r.cpu.challenge402VsPeer, r.cpu.invalid400VsPeer]).toEqual([0.625, 0.5, 0.5]);
  });
});
