/**
 * The MCP tools without a server: names and schemas generated from the catalog, arguments judged
 * by the HTTP rules, the sample tool's cache, and the mapping of replies onto the x402 MCP
 * transport's results (PaymentRequired, settlement response, receipt, failures).
 */
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { validateQuery } from '../../../src/catalog/validate-query.ts';
import type { HttpReply } from '../../../src/errors.ts';
import type { PaidHandlerLookup } from '../../../src/intel/handler-group.ts';
import { createMcpTools } from '../../../src/mcp/mcp-tools.ts';
import { toolNameOf } from '../../../src/mcp/paid-tools.ts';
import { createSampleTool } from '../../../src/mcp/sample-tool.ts';
import { argumentsToQuery } from '../../../src/mcp/tool-arguments.ts';
import { resultOfReply } from '../../../src/mcp/tool-result.ts';
import type { PaidAttempt } from '../../../src/x402/flow/paid-caller.ts';
import { SPEC_PRICES } from '../../fixtures/spec-prices.ts';

const signal = new AbortController().signal;
const json = (status: number, body: unknown, headers: Record<string, string> = {}): HttpReply => ({ status, headers, body: JSON.stringify(body) });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

function tools(paid: (a: PaidAttempt) => Promise<HttpReply> = async () => json(200, {}), handlers: PaidHandlerLookup = {}) {
  return createMcpTools({ paid, handlers, free: async (r) => json(200, { path: r.path, query: r.query, body: r.body }) });
}

describe('tool list from the catalog', () => {
  it('one tool per paid endpoint, named from its path, plus seven free tools, all unique', () => {
    const names = tools().definitions.map((d) => d.name);
    expect(names).toHaveLength(CATALOG.length + 7);
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(0, 7)).toEqual(['catalog', 'health', 'ledger_tail', 'trust_proof', 'verify_receipt', 'checkpoint', 'sample']);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(toolNameOf('/v1/token-risk')).toBe('token_risk');
    expect(toolNameOf('/v1/batch/token-risk')).toBe('batch_token_risk');
    expect(toolNameOf('/v1/lending/markets')).toBe('lending_markets');
  });

  it('a paid tool has its endpoint query schema (without our x- annotations) and the price in its description', () => {
    const byName = new Map(tools().definitions.map((d) => [d.name, d]));
    for (const e of CATALOG) {
      const d = byName.get(toolNameOf(e.path))!;
      const schema = e.query as unknown as { properties: Record<string, object>; required?: string[] };
      expect(Object.keys(d.inputSchema.properties)).toEqual(Object.keys(schema.properties));
      expect(d.inputSchema.required ?? []).toEqual(schema.required ?? []);
      expect(JSON.stringify(d.inputSchema)).not.toContain('"x-');
      expect(d.description).toContain(`Price: ${SPEC_PRICES[e.path]![1]} per call`);
    }
  });
});

describe('arguments become the HTTP query', () => {
  const decision = CATALOG.find((e) => e.path === '/v1/decision')!;
  const schema = tools().definitions.find((d) => d.name === 'decision')!.inputSchema;

  it('refuses an argument the tool does not define, as HTTP refuses the parameter', () => {
    const q = argumentsToQuery(schema, { mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', minSmr: 40 });
    expect(q).toMatchObject({ ok: false, error: { error: 'unknown_parameter', param: 'minSmr' } });
  });

  it('in the schema order, typed values as their text, null arguments left out', () => {
    const q = argumentsToQuery(schema, {
      policy: 'anti-rug',
      minSmri: 40,
      mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
      denyMintAuthority: true,
      action: null,
    });
    expect(q).toEqual({ ok: true, query: 'mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263&minSmri=40&denyMintAuthority=true&policy=anti-rug' });
    expect(validateQuery(decision, q.ok ? q.query : '').ok).toBe(true);
  });

  it('an object or array argument is refused naming the parameter and its type', () => {
    expect(argumentsToQuery(schema, { minSmri: [40] })).toEqual({
      ok: false,
      error: { error: 'invalid_parameter', param: 'minSmri', message: 'minSmri must be of type number' },
    });
  });

  it('a paid tool with invalid arguments answers the HTTP 400 body as an error result, before the paid caller is reached', async () => {
    const reached: PaidAttempt[] = [];
    const t = tools(async (a) => {
      reached.push(a);
      return json(400, { error: 'invalid_parameter', param: 'mint', message: 'mint is not a base58 address of 32 bytes' });
    });
    const bad = await t.call({ name: 'smri', arguments: { mint: { a: 1 } }, meta: {}, signal, client: '' });
    expect(bad).toMatchObject({ isError: true, structuredContent: { error: 'invalid_parameter', param: 'mint' } });
    expect(reached).toHaveLength(0);
    await t.call({ name: 'smri', arguments: { mint: 'x' }, meta: { 'x402/payment': { p: 1 } }, signal, client: '' });
    expect(reached[0]).toMatchObject({ query: 'mint=x', resourceUrl: 'mcp://tool/smri', payment: { object: { p: 1 } } });
  });

  it('an unknown tool is no result (the server answers it with a protocol error)', () => {
    expect(tools().call({ name: 'nope', arguments: {}, meta: {}, signal, client: '' })).toBeNull();
  });
});

describe('replies as x402 MCP results', () => {
  const required = { x402Version: 2, error: 'Payment required', resource: { url: 'mcp://tool/epoch' }, accepts: [{ scheme: 'exact' }] };

  it('a 402 is an isError result with the whole PaymentRequired of its header as structuredContent and the x402/error wrapper as text', () => {
    // The HTTP body is the short error: the result's PaymentRequired is the header's, whole.
    const r = resultOfReply(json(402, { error: 'payment_required', message: 'm' }, { 'PAYMENT-REQUIRED': b64(required) }));
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual(required);
    expect(JSON.parse(r.content[0]!.text)).toEqual({ 'x402/error': { code: 402, message: 'Payment required', data: required } });
  });

  it('a failed settlement adds x402/payment-response beside the terms', () => {
    const failure = { success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:8453', payer: '' };
    const refused = { ...required, error: 'insufficient_funds' };
    const r = resultOfReply(json(402, { error: 'insufficient_funds', message: 'm' }, { 'PAYMENT-REQUIRED': b64(refused), 'PAYMENT-RESPONSE': b64(failure) }));
    expect(r.structuredContent).toMatchObject({ error: 'insufficient_funds', 'x402/payment-response': failure });
  });

  it('a paid 200 carries the answer, the settle response object, the receipt header value and the phase timings', () => {
    const settle = { success: true, transaction: 'tx', network: 'solana:x', payer: 'p' };
    const timing = 'verify;dur=0.41, handler;dur=0.05, total;dur=2.5';
    const r = resultOfReply(json(200, { epoch: 1 }, { 'PAYMENT-RESPONSE': b64(settle), 'X-Service-Receipt': 'cmVjZWlwdA==', 'Server-Timing': timing }));
    expect(r).toEqual({
      content: [{ type: 'text', text: '{"epoch":1}' }],
      structuredContent: { epoch: 1 },
      _meta: { 'x402/payment-response': settle, 'x402/receipt': 'cmVjZWlwdA==', 'x402/server-timing': timing },
    });
  });

  it('any other reply is an isError result with the error body', () => {
    expect(resultOfReply(json(404, { error: 'not_found', message: 'no such mint' }))).toEqual({
      content: [{ type: 'text', text: '{"error":"not_found","message":"no such mint"}' }],
      structuredContent: { error: 'not_found', message: 'no such mint' },
      isError: true,
    });
  });
});

describe('sample tool', () => {
  it('answers the example query marked sample, computing it once for concurrent and later callers', async () => {
    const seen: unknown[] = [];
    const handlers: PaidHandlerLookup = {
      '/v1/epoch': async (q) => {
        seen.push(q);
        return { epoch: seen.length } as never;
      },
    };
    const sample = createSampleTool({ handlers });
    const [a, b] = await Promise.all([sample.call({ endpoint: 'epoch' }, signal), sample.call({ endpoint: '/v1/epoch' }, signal)]);
    const c = await sample.call({ endpoint: 'epoch' }, signal);
    expect(seen).toEqual([{ rate: 'both' }]);
    for (const r of [a, b, c])
      expect(r.structuredContent).toMatchObject({ sample: true, tool: 'epoch', endpoint: '/v1/epoch', parameters: { rate: 'both' }, answer: { epoch: 1 } });
  });

  it('an unknown endpoint is an error naming the valid ones; a failed computation is not cached', async () => {
    const unknown = await createSampleTool({ handlers: {} }).call({ endpoint: 'v1/nope' }, signal);
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ error: 'invalid_parameter', param: 'endpoint' });
    expect(String(unknown.structuredContent!.message)).toContain('token_risk');
    const missing = await createSampleTool({ handlers: {} }).call({ endpoint: 'epoch' }, signal);
    expect(missing.structuredContent).toMatchObject({ error: 'upstream_unavailable' });
  });
});
