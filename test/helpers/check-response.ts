/** Checks answers against their RESPONSES schema, listing every violation on failure. */
import Value from 'typebox/value';
import { expect } from 'vitest';
import { RESPONSES } from '../../src/catalog/responses.ts';

/** The schema violations of `body` for `path` as `<json pointer> <message>` (empty when it conforms). */
export function responseErrors(path: string, body: unknown): string[] {
  const schema = RESPONSES[path];
  if (!schema) throw new Error(`no response schema for ${path}`);
  return Value.Check(schema, body) ? [] : [...Value.Errors(schema, body)].map((e) => `${e.instancePath} ${e.message}`);
}

/**
 * Asserts that `res` is a paid answer that settled (200 with PAYMENT-RESPONSE and a signed receipt)
 * and whose body conforms to the schema of the endpoint it answers; resolves with the body.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export async function expectSettledAnswer(res: Response): Promise<Record<string, any>> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('payment-response'), 'PAYMENT-RESPONSE header').toBeTruthy();
  expect(res.headers.get('x-service-receipt'), 'receipt header').toBeTruthy();
  const body = JSON.parse(text) as unknown;
  expect(responseErrors(new URL(res.url).pathname, body)).toEqual([]);
  return body as Record<string, unknown>;
}
