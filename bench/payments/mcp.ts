/**
 * MCP benchmark: the same calls over POST /mcp and over HTTP, against the real service on the
 * embedded localnet, reported as ratios (MCP throughput over HTTP throughput, MCP p50 over HTTP p50),
 * so the figures compare across machines:
 *
 * - challenge: a paid tool called without payment (the PaymentRequired result) beside the HTTP
 *   402 of the same endpoint: the same work, so the ratio is the MCP transport's own cost;
 * - sample: the free `sample` tool (a cached live answer) beside that same HTTP 402, the cheapest
 *   HTTP answer of the endpoint;
 * - paid: a paid tool with a fresh exact-SVM payment in `_meta["x402/payment"]` beside the paid
 *   HTTP call with the same kind of payment in `PAYMENT-SIGNATURE`.
 *
 * MCP requests are raw JSON-RPC POSTs of the stateless 2025-11-25 wire (what most clients speak
 * today; answered as server-sent events), so the figures are the service's, not a client library's.
 *
 *   npm run bench -- mcp
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Localnet, localnetUpstreams, startLocalnet } from '@solana-x402-intel/localnet';
import { loadConfig } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/service/service.ts';
import { fundedPayer, type TestPayer } from '../../test/helpers/svm-payer.ts';
import { type BenchRequest, drive, FREE_LIMIT_OFF, httpGet, paymentHeaders, type Run, round } from './paid-calls.ts';

const PATH = '/v1/epoch';
const TOOL = 'epoch';
/** Free calls per client, and concurrent clients. */
const FREE_CALLS_PER_CLIENT = 300;
const FREE_CONCURRENCY = 8;
/** Paid calls per client, at each concurrency. */
const PAID_LEVELS = [
  { concurrency: 1, callsPerClient: 12 },
  { concurrency: 8, callsPerClient: 6 },
] as const;

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A `tools/call` POST whose answer should (or should not) be an error result holding `marker`. */
function mcpCall(url: string, name: string, args: Record<string, unknown>, meta: Record<string, unknown> | null, marker: string): BenchRequest {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
  return {
    send: () => fetch(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body }),
    ok: (res, text) => res.status === 200 && text.includes(marker),
  };
}

const repeat = (clients: number, calls: number, request: () => BenchRequest) => Array.from({ length: clients }, () => Array.from({ length: calls }, request));

function ratios(mcp: Run, http: Run) {
  return { mcp, http, throughputRatio: round(mcp.perSecond / http.perSecond, 3), p50Ratio: round(mcp.p50Ms / http.p50Ms, 3) };
}

async function benchFree(service: RunningService) {
  const url = service.url;
  const http402 = () => httpGet(`${url}${PATH}`, null, 402);
  // Warm both paths (and the sample cache) before timing.
  await drive(repeat(1, 20, http402));
  await drive(repeat(1, 20, () => mcpCall(url, 'sample', { endpoint: TOOL }, null, '"sample":true')));
  const httpChallenge = await drive(repeat(FREE_CONCURRENCY, FREE_CALLS_PER_CLIENT, http402));
  const mcpChallenge = await drive(repeat(FREE_CONCURRENCY, FREE_CALLS_PER_CLIENT, () => mcpCall(url, TOOL, {}, null, 'x402/error')));
  const mcpSample = await drive(repeat(FREE_CONCURRENCY, FREE_CALLS_PER_CLIENT, () => mcpCall(url, 'sample', { endpoint: TOOL }, null, '"sample":true')));
  return { concurrency: FREE_CONCURRENCY, challenge: ratios(mcpChallenge, httpChallenge), sample: ratios(mcpSample, httpChallenge) };
}

async function benchPaid(service: RunningService, localnet: Localnet, payers: readonly TestPayer[]) {
  const levels = [];
  for (const level of PAID_LEVELS) {
    const clients = payers.slice(0, level.concurrency);
    const forHttp = await Promise.all(clients.map((p) => paymentHeaders(service, localnet, p, level.callsPerClient)));
    const http = await drive(forHttp.map((list) => list.map((h) => httpGet(`${service.url}${PATH}`, h, 200))));
    const forMcp = await Promise.all(clients.map((p) => paymentHeaders(service, localnet, p, level.callsPerClient)));
    const payloadOf = (h: Record<string, string>) => JSON.parse(Buffer.from(h['PAYMENT-SIGNATURE']!, 'base64').toString()) as unknown;
    const mcp = await drive(forMcp.map((list) => list.map((h) => mcpCall(service.url, TOOL, {}, { 'x402/payment': payloadOf(h) }, 'x402/receipt'))));
    levels.push({ concurrency: level.concurrency, ...ratios(mcp, http) });
  }
  return levels;
}

/** Runs the benchmark and returns its report. */
export async function benchMcp(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  const localnet = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-mcp' });
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, ...FREE_LIMIT_OFF]);
  const service = await startService(config, { upstreams: localnetUpstreams(localnet) });
  try {
    const maxClients = Math.max(...PAID_LEVELS.map((l) => l.concurrency));
    const payers = await Promise.all(Array.from({ length: maxClients }, () => fundedPayer(localnet.urls.rpc, 100_000_000)));
    return {
      name: 'mcp',
      endpoint: PATH,
      tool: TOOL,
      mcpWire: '2025-11-25 stateless, answers as server-sent events',
      free: await benchFree(service),
      paid: { network: 'localnet (LiteSVM)', commitment: config.svmCommitment, levels: await benchPaid(service, localnet, payers) },
    };
  } finally {
    await service.close();
    await localnet.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
