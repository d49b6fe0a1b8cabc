/** The byte bound's reckoning of a head from lengths alone (src/http/server/wire-bytes.ts), against the head written out. */
import { describe, expect, it } from 'vitest';
import { CORS_HEADERS } from '../../../src/http/server/route-table.ts';
import { headBytes } from '../../../src/http/server/wire-bytes.ts';

/** The head as the front end and uWS write it, with the date uWS adds. */
function headText(statusLine: string, headers: Record<string, string>, framing: string): string {
  const lines = [`HTTP/1.1 ${statusLine}`, ...Object.entries({ ...CORS_HEADERS, ...headers }).map(([k, v]) => `${k}: ${v}`)];
  return `${[...lines, 'Date: Sun, 29 Nov 2026 01:20:47 GMT', framing].join('\r\n')}\r\n\r\n`;
}

describe('headBytes', () => {
  it('is the length of the head written out, for every count of the length’s digits', () => {
    const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
    for (const length of [0, 7, 10, 99, 100, 999, 1000, 104_506, 1_000_000]) {
      expect(headBytes('402 Payment Required', headers, length), String(length)).toBe(
        headText('402 Payment Required', headers, `Content-Length: ${length}`).length,
      );
    }
  });

  it('counts the chunked framing line of a streamed answer', () => {
    expect(headBytes('200 OK', {}, null)).toBe(headText('200 OK', {}, 'Transfer-Encoding: chunked').length);
  });
});
