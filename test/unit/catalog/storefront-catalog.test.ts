/**
 * The storefront's copy of the catalog: the console's parameter rules are the validator's (every
 * bound, enumeration and list rule the form states, validateQuery enforces, and the reverse),
 * the example query of each endpoint passes both, and the server-rendered catalog shows every
 * endpoint with its price and parameters, safe to embed.
 */
import { describe, expect, it } from 'vitest';
import { describeInputs } from '../../../src/catalog/discovery.ts';
import { CATALOG, CATALOG_BY_PATH } from '../../../src/catalog/endpoints.ts';
import { formatUsd } from '../../../src/catalog/format-usd.ts';
import { catalogSectionHtml, consoleCatalog, consoleCatalogJson, consoleParams, endpointAnchor } from '../../../src/catalog/storefront-catalog.ts';
import { validateQuery } from '../../../src/catalog/validate-query.ts';
import { listProblem } from '../../../web/param-rules.ts';
import { addresses } from '../../fixtures/param-rules.ts';

/** The example query of `path` with `name` set to `value`. */
const withParam = (path: string, name: string, value: string) => {
  const q = new URLSearchParams(CATALOG_BY_PATH.get(path)!.example as Record<string, string>);
  q.set(name, value);
  return validateQuery(CATALOG_BY_PATH.get(path)!, q.toString());
};

const allParams = consoleCatalog().flatMap((e) => e.params.map((p) => [`${e.path} ${p.name}`, e.path, p] as const));

describe('console parameter rules', () => {
  it('lists every parameter of every endpoint, required ones as required', () => {
    for (const entry of CATALOG) {
      const params = consoleParams(entry);
      expect(params.map((p) => [p.name, p.required, p.type])).toEqual(describeInputs(entry).map((i) => [i.name, i.required, i.type]));
      for (const p of params) expect(p.rule.length).toBeGreaterThan(5);
    }
    expect(allParams.length).toBeGreaterThan(30);
  });

  it("every example query passes the validator and the form's list rules", () => {
    for (const e of consoleCatalog()) {
      expect(validateQuery(CATALOG_BY_PATH.get(e.path)!, new URLSearchParams(e.example as Record<string, string>).toString()).ok).toBe(true);
      for (const p of e.params) if (e.example[p.name] !== undefined) expect(listProblem(p, e.example[p.name]!)).toBeNull();
    }
  });

  it.each(allParams.filter(([, , p]) => p.minimum !== undefined))("%s: the bounds the form states are the validator's", (_, path, p) => {
    const step = p.type === 'integer' ? 1 : 0.5;
    expect(withParam(path, p.name, String(p.minimum)).ok).toBe(true);
    expect(withParam(path, p.name, String(p.maximum)).ok).toBe(true);
    expect(withParam(path, p.name, String(p.minimum! - step))).toMatchObject({ ok: false, error: { param: p.name } });
    expect(withParam(path, p.name, String(p.maximum! + step))).toMatchObject({ ok: false, error: { param: p.name } });
  });

  it.each(allParams.filter(([, , p]) => p.values !== undefined || p.type === 'boolean'))(
    "%s: the select's options are exactly what the validator takes",
    (_, path, p) => {
      for (const v of p.values ?? ['true', 'false']) expect(withParam(path, p.name, v).ok).toBe(true);
      expect(withParam(path, p.name, 'not-an-option').ok).toBe(false);
    },
  );

  it.each(allParams.filter(([, , p]) => p.maxLength !== undefined))("%s: maxlength is the validator's", (_, path, p) => {
    expect(withParam(path, p.name, 'x'.repeat(p.maxLength! + 1))).toMatchObject({ ok: false, error: { param: p.name } });
  });

  it.each(allParams.filter(([, , p]) => p.check?.endsWith('-list')))("%s: the form's list rule agrees with the validator", (_, path, p) => {
    const good = p.check === 'positive-number-list' ? '0.5,2' : addresses(2).join(',');
    const samples = [
      good,
      `${good},`,
      addresses(p.maxItems! + 1).join(','),
      ...(p.check === 'positive-number-list' ? ['0', '1e3', String(p.maxElement! + 1)] : []),
    ];
    if (p.check === 'address-list') samples.push('not-base58-0OIl');
    for (const value of samples) {
      const form = listProblem(p, value);
      const server = withParam(path, p.name, value);
      expect([value, form === null]).toEqual([value, server.ok]);
    }
  });

  it('states rules in words', () => {
    const byName = (path: string, name: string) => consoleParams(CATALOG_BY_PATH.get(path)!).find((p) => p.name === name)!;
    expect(byName('/v1/smri', 'mint').rule).toBe('base58 address (32 bytes)');
    expect(byName('/v1/dex-quote', 'slippageBps').rule).toBe('integer 0-5000; default 50');
    expect(byName('/v1/epoch', 'rate').rule).toBe('one of primary, alt, both; default both');
    expect(byName('/v1/batch/token-risk', 'mints').rule).toBe('comma-separated, up to 10 distinct');
    expect(byName('/v1/tipfloor', 'fresh').rule).toBe('true or false; default false');
  });
});

describe('server-rendered catalog', () => {
  const html = catalogSectionHtml();

  it('shows every endpoint with its price, summary, parameters and example', () => {
    for (const e of CATALOG) {
      const card = html.slice(html.indexOf(`id="${endpointAnchor(e.path)}"`));
      expect(card.length).toBeLessThan(html.length);
      const end = card.indexOf('</article>');
      const text = card.slice(0, end);
      expect(text).toContain(`<code>${e.path}</code>`);
      expect(text).toContain(formatUsd(e.priceUnits));
      for (const i of describeInputs(e)) expect(text).toContain(`<code>${i.name}</code>`);
      expect(text).toContain(`href="${e.path}?`);
    }
    expect(new Set(CATALOG.map((e) => endpointAnchor(e.path))).size).toBe(CATALOG.length);
  });

  it('embeds the console catalog as JSON with no markup in it', () => {
    const json = consoleCatalogJson();
    expect(json).not.toContain('<');
    expect(JSON.parse(json)).toEqual(consoleCatalog());
  });
});
