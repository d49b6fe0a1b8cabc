/**
 * The free preview's rules (one per catalog entry, its `preview`) and how they are applied: every
 * rule well formed, and applying a rule only removes (every value left is the answer's own, every
 * cut list is a prefix of the original, the note names exactly what was cut), on answers shaped
 * by each rule and on real handler answers over the market fixtures. The answer handed in is
 * never changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeckoTerminalClient } from '../../../src/market-apis/geckoterminal-client.ts';
import { createLendingClient } from '../../../src/market-apis/lending-client.ts';
import { CATALOG, CATALOG_BY_PATH } from '../../../src/catalog/endpoints.ts';
import type { PreviewRule } from '../../../src/catalog/preview-rules.ts';
import { createLendingMarketsHandler } from '../../../src/intel/market/lending-markets.ts';
import { createPoolListHandlers } from '../../../src/intel/market/pool-lists.ts';
import { truncateAnswer } from '../../../src/preview/truncate-answer.ts';
import { responseErrors } from '../../helpers/check-response.ts';
import { marketFixture, startFixtureUpstream, type FixtureUpstream } from '../../helpers/fixture-upstream.ts';

type Json = Record<string, any>;

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** Every leaf of `value` as [path, value] (array items by index). */
function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  return [[path, value]];
}

const at = (root: unknown, path: string): unknown => path.split('.').reduce<any>((node, s) => (node && typeof node === 'object' ? node[s] : undefined), root);

/** Asserts that `preview` is `answer` with only what `rule` allows removed, and that its note is exact. */
function expectOnlyRemoved(answer: Json, rule: PreviewRule): Json {
  const before = JSON.stringify(answer);
  const preview = truncateAnswer(answer, rule) as Json;
  expect(JSON.stringify(answer), 'the answer handed in is unchanged').toBe(before);
  expect(Object.keys(preview)[0]).toBe('preview');
  expect(preview.preview).toBe(true);
  const { preview: _p, previewTruncated, ...rest } = preview;
  const original = new Map(leaves(answer));
  for (const [path, value] of leaves(rest)) expect(original.get(path), `${path} is the answer's own value`).toEqual(value);
  const expected: Json = {};
  for (const [path, keep] of Object.entries(rule.cut)) {
    const list = at(answer, path);
    if (!Array.isArray(list)) continue;
    expect(at(rest, path)).toEqual(list.slice(0, keep));
    if (list.length > keep) expected[path] = { shown: keep, total: list.length };
  }
  for (const path of rule.withhold) {
    if (at(answer, path) === undefined) continue;
    expect(at(rest, path), `${path} withheld`).toBeUndefined();
    expected[path] = { withheld: true };
  }
  expect(previewTruncated).toEqual(expected);
  // Nothing else went missing: every leaf of the answer outside the cut and withheld paths is kept.
  const removed = (p: string) =>
    rule.withhold.some((w) => p === w || p.startsWith(`${w}.`) || p.startsWith(`${w}[`)) ||
    Object.entries(rule.cut).some(([c, keep]) => {
      const m = new RegExp(`^${c.replace(/\./g, '\\.')}\\[(\\d+)\\]`).exec(p);
      return m !== null && Number(m[1]) >= keep;
    });
  const kept = new Map(leaves(rest));
  for (const [path] of original) if (!removed(path)) expect(kept.has(path), `${path} kept`).toBe(true);
  return preview;
}

/** An answer in the shape `rule` expects: each cut list longer than kept, each withheld field present, and other fields. */
function shapedAnswer(rule: PreviewRule): Json {
  const answer: Json = { slot: 123, note: 'kept as is', nested: { keep: [1, 2, 3, 4, 5] } };
  const place = (path: string, value: unknown) => {
    const segments = path.split('.');
    const field = segments.pop()!;
    let node = answer;
    for (const s of segments) node = node[s] ??= { sibling: s };
    node[field] = value;
  };
  for (const [path, keep] of Object.entries(rule.cut))
    place(
      path,
      Array.from({ length: keep + 4 }, (_, i) => ({ rank: i + 1, label: `item ${i}` })),
    );
  for (const path of rule.withhold) place(path, { detail: [1, 2], score: 42 });
  return answer;
}

describe('preview rules', () => {
  it.each(CATALOG.map((e) => [e.path, e.preview] as const))('%s: well formed, and cuts something', (_path, rule) => {
    expect(Object.keys(rule.cut).length + rule.withhold.length).toBeGreaterThan(0);
    for (const keep of Object.values(rule.cut)) expect(Number.isInteger(keep) && keep >= 1).toBe(true);
    const paths = [...Object.keys(rule.cut), ...rule.withhold];
    for (const p of paths) expect(p).toMatch(/^[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$/);
    expect(new Set(paths).size).toBe(paths.length);
    // No path inside another: what a rule does at one path never depends on another.
    for (const a of paths) for (const b of paths) if (a !== b) expect(b.startsWith(`${a}.`), `${b} inside ${a}`).toBe(false);
  });

  it.each(CATALOG.map((e) => [e.path, e.preview] as const))('%s: applied to an answer of its shape, only removes', (_path, rule) => {
    const answer = shapedAnswer(rule);
    const preview = expectOnlyRemoved(answer, rule);
    expect(Object.keys(preview.previewTruncated).sort()).toEqual([...Object.keys(rule.cut), ...rule.withhold].sort());
    expect(preview.nested).toEqual({ keep: [1, 2, 3, 4, 5] });
  });

  it('short lists and absent fields are left alone and not noted; a non-object answer is a fault', () => {
    const rule: PreviewRule = { cut: { pools: 3, 'series.recent': 3 }, withhold: ['depth', 'part.profile'] };
    const answer = { pools: [1, 2, 3], series: { recent: 'unknown' }, part: { error: 'upstream_unavailable', message: 'down' } };
    expect(truncateAnswer(answer, rule)).toEqual({ preview: true, ...answer, previewTruncated: {} });
    expect(() => truncateAnswer([1, 2], rule)).toThrow(/not a JSON object/);
    expect(() => truncateAnswer(null, rule)).toThrow(/not a JSON object/);
  });
});

describe('preview rules on real handler answers (market fixtures)', () => {
  let up: FixtureUpstream;
  beforeAll(async () => {
    up = await startFixtureUpstream();
  });
  afterAll(async () => {
    await up.close();
  });
  const signal = new AbortController().signal;

  /** A source page of `n` entries: the fixture's entries repeated under distinct names (real shapes). */
  function longPage(file: string, n: number): Json {
    const page = marketFixture(file) as Json;
    const data = Array.from({ length: n }, (_, i) => {
      const e = page.data[i % page.data.length];
      return { ...e, attributes: { ...e.attributes, name: `${e.attributes.name} #${i}` } };
    });
    return { ...page, data };
  }

  it("/v1/trending-tokens and /v1/new-pairs: pools cut to the first 3, every value the answer's own", async () => {
    up.route('/api/v2/networks/solana/trending_pools', { body: longPage('geckoterminal-trending.json', 12) });
    up.route('/api/v2/networks/solana/new_pools', { body: longPage('geckoterminal-new.json', 9) });
    const lists = createPoolListHandlers(createGeckoTerminalClient({ baseUrl: up.url }));
    for (const [path, answer, total] of [
      ['/v1/trending-tokens', await lists.trending({ limit: 20 }, signal), 12],
      ['/v1/new-pairs', await lists.newPairs({ limit: 20 }, signal), 9],
    ] as const) {
      expect(responseErrors(path, answer)).toEqual([]);
      const preview = expectOnlyRemoved(answer as Json, CATALOG_BY_PATH.get(path)!.preview);
      expect(preview.pools).toHaveLength(3);
      expect(preview.count).toBe(total);
      expect(preview.previewTruncated).toEqual({ pools: { shown: 3, total } });
    }
  });

  it('/v1/lending/markets: markets cut to the first 3', async () => {
    const [market] = marketFixture('kamino-markets.json') as Json[];
    const addresses = [
      market!.lendingMarket,
      'So11111111111111111111111111111111111111112',
      USDC,
      'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
      'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    ];
    up.route('/v2/kamino-market', { body: addresses.map((a, i) => ({ ...market, lendingMarket: a, name: `Market ${i}`, isPrimary: i === 0 })) });
    for (const a of addresses) up.route(`/kamino-market/${a}/reserves/metrics`, { body: marketFixture('kamino-reserves.json') });
    const handler = createLendingMarketsHandler(createLendingClient({ baseUrl: up.url }));
    const answer = (await handler({ limit: 100 }, signal)) as Json;
    expect(answer.markets).toHaveLength(5);
    const preview = expectOnlyRemoved(answer, CATALOG_BY_PATH.get('/v1/lending/markets')!.preview);
    expect(preview.previewTruncated).toEqual({ markets: { shown: 3, total: 5 } });
  });
});
