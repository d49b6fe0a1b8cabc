/**
 * POST /mcp on the running service, driven by the official MCP client on both protocol eras:
 * the catalog's tools are listed, every paid tool has a free sample, invalid arguments answer the
 * HTTP 400 reasons, a paid tool called without payment answers the x402 PaymentRequired terms of
 * its HTTP twin, and the transport rules hold (Origin, methods, no OAuth metadata, SSE unbuffered).
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CATALOG, CATALOG_BY_PATH } from '../../src/catalog/endpoints.ts';
import { toolNameOf } from '../../src/mcp/paid-tools.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { callTool, type McpEra, mcpClient, RAW_MCP_HEADERS, rawToolCall } from '../helpers/mcp-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
const clients = new Map<McpEra, Client>();
/** The tools that are not a catalog entry's (docs/mcp.md). */
const FREE_TOOLS = ['sample', 'catalog', 'health', 'ledger_tail', 'trust_proof', 'verify_receipt', 'checkpoint'];

beforeAll(async () => {
  t = await startTestService({}, [], FULL_TRAFFIC);
  for (const era of ['legacy', 'modern'] as const) clients.set(era, await mcpClient(t.url, era));
}, 120_000);
afterAll(async () => {
  for (const c of clients.values()) await c.close();
  await t?.close();
});

/** The catalog's examples that name mainnet objects the localnet does not have. */
const MAINNET_ONLY_EXAMPLES: Readonly<Record<string, string>> = { '/v1/nft-collection': 'symbol', '/v1/tx-inspect': 'sig' };

describe.each(['legacy', 'modern'] as const)('tools over the %s protocol', (era) => {
  it('lists a paid tool per catalog entry and the free ones', async () => {
    const { tools } = await clients.get(era)!.listTools();
    const names = tools.map((x) => x.name);
    expect(names.sort()).toEqual([...CATALOG.map((e) => toolNameOf(e.path)), ...FREE_TOOLS].sort());
    expect(names).toEqual(expect.arrayContaining(['token_risk', 'batch_token_risk', 'lending_markets']));
    const tokenRisk = tools.find((x) => x.name === 'token_risk')!;
    expect(tokenRisk.inputSchema).toMatchObject({ type: 'object', required: ['mint'], properties: { mint: { type: 'string', minLength: 32 } } });
    expect(tokenRisk.description).toContain('$0.028 per call');
  });

  it('answers invalid arguments with the HTTP 400 body, as an error result', async () => {
    const r = await callTool(clients.get(era)!, 'token_risk', { mint: 'xyz' });
    const http = await fetch(`${t.url}/v1/token-risk?mint=xyz`);
    expect(http.status).toBe(400);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual(await readJson(http));
    const missing = await callTool(clients.get(era)!, 'dex_quote', { inputMint: CATALOG_BY_PATH.get('/v1/smri')!.example.mint });
    expect(missing.structuredContent).toMatchObject({ error: 'missing_parameter', param: 'outputMint' });
  });

  it('answers a paid tool without payment with the x402 PaymentRequired of its HTTP twin', async () => {
    const r = await callTool(clients.get(era)!, 'epoch', { rate: 'both' });
    expect(r.isError).toBe(true);
    const required = r.structuredContent!;
    expect(required).toMatchObject({ x402Version: 2, error: 'Payment required', resource: { url: 'mcp://tool/epoch', mimeType: 'application/json' } });
    expect(JSON.parse(r.content[0]!.text)).toEqual({ 'x402/error': { code: 402, message: 'Payment required', data: required } });
    const challenge = await fetch(`${t.url}/v1/epoch?rate=both`);
    await challenge.arrayBuffer();
    const http = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString());
    // The Solana option carries a live recentBlockhash, which may move between the two challenges.
    const stable = (accepts: any[]) => accepts.map(({ extra: { recentBlockhash: _, ...extra }, ...rest }) => ({ ...rest, extra }));
    expect(stable(required.accepts)).toEqual(stable(http.accepts));
    expect(required.accepts.map((a: any) => `${a.scheme} ${a.network}`)).toEqual([
      'exact solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      'exact eip155:8453',
      'batch-settlement eip155:8453',
    ]);
  });

  it('refuses an unknown tool with a protocol error', async () => {
    await expect(callTool(clients.get(era)!, 'no_such_tool', {})).rejects.toThrow(/Unknown tool: no_such_tool/);
  });
});

describe('free tools', () => {
  it('sample answers every paid tool for its catalog example, marked sample, with no receipt and no ledger entry', async () => {
    const client = clients.get('modern')!;
    // The tip floor has an answer only once the stream delivered complete slots with tips; until
    // then it is upstream_unavailable by design (a slow start under load showed it). Wait for that.
    await vi.waitUntil(async () => !(await callTool(client, 'sample', { endpoint: '/v1/tipfloor' })).isError, { timeout: 60_000, interval: 250 });
    const sizeBefore = t.service.ledger.head().treeSize;
    for (const e of CATALOG) {
      const r = await callTool(client, 'sample', { endpoint: e.path });
      expect(r._meta?.['x402/receipt']).toBeUndefined();
      const param = MAINNET_ONLY_EXAMPLES[e.path];
      if (param) {
        // The live answer for a collection or transaction the localnet does not know: the endpoint's own 404.
        expect(r.structuredContent, e.path).toMatchObject({ error: 'not_found', param });
        continue;
      }
      expect(r.isError, `${e.path}: ${r.content[0]!.text.slice(0, 200)}`).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ sample: true, endpoint: e.path, parameters: e.example });
      expect(typeof r.structuredContent!.answer).toBe('object');
    }
    expect(t.service.ledger.head().treeSize).toBe(sizeBefore);
    const unknown = await callTool(client, 'sample', { endpoint: 'token_risks' });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: 'invalid_parameter', param: 'endpoint' } });
  });

  it('catalog, health, ledger_tail, trust_proof and checkpoint answer what their endpoints answer', async () => {
    const client = clients.get('legacy')!;
    const catalog = await callTool(client, 'catalog', {});
    expect(catalog.structuredContent).toMatchObject({ count: CATALOG.length });
    const listed = catalog.structuredContent!.tools as { tool: string }[];
    expect(listed.map((x) => x.tool)).toEqual(CATALOG.map((e) => toolNameOf(e.path)));
    expect(listed.find((x) => x.tool === 'token_risk')).toMatchObject({ tool: 'token_risk', endpoint: '/v1/token-risk', price: '$0.028', priceUnits: 28000 });
    expect((await callTool(client, 'health', {})).structuredContent).toMatchObject({ status: 'ok' });
    const tail = await callTool(client, 'ledger_tail', { limit: 5 });
    expect(tail.structuredContent).toMatchObject({ treeSize: t.service.ledger.head().treeSize });
    expect(await callTool(client, 'ledger_tail', { limit: 0 })).toMatchObject({
      isError: true,
      structuredContent: { error: 'invalid_parameter', param: 'limit' },
    });
    expect(await callTool(client, 'trust_proof', { index: 10_000 })).toMatchObject({ isError: true, structuredContent: { error: 'not_found' } });
    const checkpoint = await callTool(client, 'checkpoint', {});
    expect(checkpoint.structuredContent).toMatchObject({ treeSize: t.service.ledger.head().treeSize });
    const verify = await callTool(client, 'verify_receipt', { receipt: 'bm90IGEgcmVjZWlwdA==' });
    expect(verify).toMatchObject({ isError: true, structuredContent: { error: 'invalid_parameter', param: 'receipt' } });
  });
});

describe('transport', () => {
  it('refuses a foreign Origin with 403 and accepts its own and loopback origins', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    // Every body is read: an unread one holds its connection past the service's close.
    const post = async (origin: string) => {
      const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...RAW_MCP_HEADERS, origin }, body });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await post('https://evil.example')).toBe(403);
    expect(await post('null')).toBe(403);
    expect(await post(new URL(t.url).origin)).toBe(200);
    expect(await post('http://localhost:6274')).toBe(200);
    const preflight = await fetch(`${t.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-headers': 'mcp-protocol-version' },
    });
    await preflight.arrayBuffer();
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Mcp-Protocol-Version');
  });

  it('answers GET and DELETE with 405, has no OAuth metadata, and streams SSE unbuffered', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      await res.arrayBuffer();
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${t.url}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).toBe(404);
    }
    const sse = await rawToolCall(t.url, 'health', {});
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(sse.headers.get('x-accel-buffering')).toBe('no');
    expect(await sse.text()).toMatch(/^event: message\ndata: \{.*"status":"ok"/m);
  });

  it('refuses a body over 64 KiB before parsing it', async () => {
    const res = await rawToolCall(t.url, 'sample', { endpoint: 'x'.repeat(70_000) });
    await res.arrayBuffer();
    expect(res.status).toBe(413);
  });
});
