/**
 * The list rules of the console's form, as the service's validator states them: comma-separated
 * elements, duplicates removed, none empty, at most `maxItems`; numbers above 0 and at most the
 * list's largest element; addresses in base58 of an address's length. Pure (no DOM), so it is tested
 * beside the validator.
 */
import type { ConsoleParam } from '../src/catalog/console-endpoint.ts';

const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const DECIMAL_RE = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/** Why `value` breaks the list rule of `p`, or null (also for parameters that are not lists). */
export function listProblem(p: Pick<ConsoleParam, 'name' | 'check' | 'maxItems' | 'maxElement'>, value: string): string | null {
  if (p.check !== 'address-list' && p.check !== 'string-list' && p.check !== 'positive-number-list') return null;
  const items = [...new Set(value.split(',').map((s) => s.trim()))];
  if (items.some((s) => s === '')) return `${p.name} has an empty element`;
  if (p.maxItems !== undefined && items.length > p.maxItems) return `${p.name} has ${items.length} distinct elements; at most ${p.maxItems} are allowed`;
  if (p.check === 'address-list') {
    const bad = items.find((s) => !BASE58_RE.test(s));
    if (bad !== undefined) return `${p.name} element "${bad.slice(0, 64)}" is not a base58 address`;
  }
  if (p.check === 'positive-number-list') {
    const max = p.maxElement ?? Number.POSITIVE_INFINITY;
    const bad = items.find((s) => !DECIMAL_RE.test(s) || !(Number(s) > 0 && Number(s) <= max));
    if (bad !== undefined) return `${p.name} element "${bad.slice(0, 32)}" must be a decimal greater than 0 and at most ${max}`;
  }
  return null;
}
