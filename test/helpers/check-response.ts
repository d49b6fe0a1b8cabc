/** Checks answers against their catalog entry's response schema, listing every violation on failure. */
import Value from 'typebox/value';
import { expect } from 'vitest';
import { CATALOG_BY_PATH } from '../../src/catalog/endpoints.ts';
import { STREAM_BY_PATH } from '../../src/catalog/streams.ts';

/** The schema violations of `body` for `path` as `<json pointer> <message>` (empty when it conforms). */
export function responseErrors(path: string, body: unknown): string[] {
  const schema = CATALOG_BY_PATH.get(path)?.response;
  if (!schema) throw new Error(`no response schema for ${path}`);
  return Value.Check(schema, body) ? [] : [...Value.Errors(schema, body)].map((e) => `${e.instancePath} ${e.message}`);
}

/** The schema violations of a stream update's `data` for the stream at `path`, as `responseErrors` lists them. */
export function updateErrors(path: string, data: unknown): string[] {
  const schema = STREAM_BY_PATH.get(path)?.message;
  if (!schema) throw new Error(`no stream at ${path}`);
  return Value.Check(schema, data) ? [] : [...Value.Errors(schema, data)].map((e) => `${e.instancePath} ${e.message}`);
}

/**
 * Asserts that a `Server-Timing` value names each of `phases` once with a finite, non-negative
 * duration (ms), and ends with `total`; resolves with the durations by name.
 */
export function expectPaidTiming(value: string | null | undefined, phases: readonly string[]): Record<string, number> {
  expect(value, 'Server-Timing header').toBeTruthy();
  const entries = value!.split(', ').map((part) => /^([a-z]+);dur=(\d+(?:\.\d+)?)$/.exec(part));
  expect(entries.every(Boolean), value!).toBe(true);
  const durations = Object.fromEntries(entries.map((m) => [m![1]!, Number(m![2])]));
  // A Solana verification served by a reused read of the payer's account (one slot) makes no read.
  const expected = phases.filter((p) => p !== 'simulate' || 'simulate' in durations);
  expect(Object.keys(durations), value!).toEqual([...expected, 'total']);
  return durations;
}

/** The phases of a fresh Solana paid call that settled, in the order `Server-Timing` lists them. */
export const SETTLED_PHASES = ['verify', 'simulate', 'handler', 'settle', 'record', 'send', 'receipt', 'ledger'] as const;

/**
 * Asserts that `res` is a paid answer that settled (200 with PAYMENT-RESPONSE, a signed receipt and its Server-Timing)
 * and whose body conforms to the schema of the endpoint it answers; resolves with the body.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export async function expectSettledAnswer(res: Response): Promise<Record<string, any>> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('payment-response'), 'PAYMENT-RESPONSE header').toBeTruthy();
  expect(res.headers.get('x-service-receipt'), 'receipt header').toBeTruthy();
  expectPaidTiming(res.headers.get('server-timing'), SETTLED_PHASES);
  const body = JSON.parse(text) as unknown;
  expect(responseErrors(new URL(res.url).pathname, body)).toEqual([]);
  return body as Record<string, unknown>;
}
