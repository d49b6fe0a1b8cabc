/** Checks a paid answer against its RESPONSES schema, listing every violation on failure. */
import Value from 'typebox/value';
import { RESPONSES } from '../../src/catalog/responses.ts';

/** The schema violations of `body` for `path` (empty when it conforms). */
export function responseErrors(path: string, body: unknown): unknown[] {
  const schema = RESPONSES[path];
  if (!schema) throw new Error(`no response schema for ${path}`);
  return Value.Check(schema, body) ? [] : [...Value.Errors(schema, body)];
}
