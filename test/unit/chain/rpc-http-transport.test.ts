/**
 * The Solana RPC client over its keep-alive `node:http` transport, against a loopback server with
 * scripted answers: values read exactly as over kit's default transport (bigints included), a
 * JSON-RPC error judged as data on the write paths and a fault on reads, HTTP errors, the time
 * limit, the caller's abort, compressed answers, and one connection reused across calls.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type Address, createSolanaRpc } from '@solana/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRpcClient, createRpcTransport, type RpcClient } from '../../../src/chain/solana/rpc-client.ts';
import { parseRpcJson, stringifyRpcJson } from '../../../src/chain/solana/rpc-json.ts';
import { ServiceError } from '../../../src/errors.ts';

const U64_MAX = '18446744073709551615';
const OWNER = '11111111111111111111111111111111';
const SIGNATURE = `5${'1'.repeat(86)}`;

interface Scripted {
  readonly status?: number;
  /** The JSON-RPC `result` (raw JSON text, so that integers above 2^53 stay exact) or `error`. */
  readonly result?: string;
  readonly error?: { code: number; message: string; data?: unknown };
  readonly gzip?: boolean;
  /** Never answers. */
  readonly hang?: boolean;
}

let server: Server;
let url: string;
let connections = 0;
let requests = 0;
let answers: Record<string, Scripted> = {};
/** Resolved when the next request has arrived (for the abort test). */
let arrived: () => void = () => {};

function answer(method: string, id: unknown): { status: number; body: Buffer; headers: Record<string, string> } {
  const scripted = answers[method] ?? { status: 404 };
  const text = scripted.error
    ? JSON.stringify({ jsonrpc: '2.0', id, error: scripted.error })
    : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${scripted.result ?? 'null'}}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (scripted.gzip) headers['content-encoding'] = 'gzip';
  return { status: scripted.status ?? 200, body: scripted.gzip ? gzipSync(text) : Buffer.from(text), headers };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrived();
      const { method, id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; id: unknown };
      if (answers[method]?.hang) return;
      const { status, body, headers } = answer(method, id);
      res.writeHead(status, headers).end(body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answers = {};
  connections = 0;
  requests = 0;
});

const client = (timeoutMs?: number): RpcClient => createRpcClient(createRpcTransport({ url, ...(timeoutMs === undefined ? {} : { timeoutMs }) }));
/** The same client over kit's default transport (fetch), the behaviour to keep. */
const kitClient = (): RpcClient => createRpcClient(createRpcTransport({ url }, createSolanaRpc(url)));

/** What a call rejects with: a ServiceError of `code` (and these details or message). */
const fault = (code: string, more: Record<string, unknown> = {}) => expect.objectContaining({ name: 'ServiceError', code, ...more });

describe('the JSON of RPC messages', () => {
  it('reads integers outside strings as bigints, whatever the strings hold', () => {
    const text = `{"a":-12,"b":1.5,"c":2e3,"d":1e-3,"e":"7 \\"8\\" \\\\","f":[0,${U64_MAX}],"g":{"$n":"9"}}`;
    expect(parseRpcJson(text)).toStrictEqual({ a: -12n, b: 1.5, c: 2000n, d: 0.001, e: '7 "8" \\', f: [0n, BigInt(U64_MAX)], g: 9n });
  });

  it('writes bigints as bare integers', () => {
    expect(stringifyRpcJson({ params: [5n, { limit: -18446744073709551615n, note: '5n' }, 1.5] })).toBe(
      '{"params":[5,{"limit":-18446744073709551615,"note":"5n"},1.5]}',
    );
  });
});

describe('values', () => {
  it('reads every integer as kit does: u64 fields as exact bigints, fractions as numbers', async () => {
    answers.getAccountInfo = {
      result: `{"context":{"apiVersion":"2.2.0","slot":${U64_MAX}},"value":{"data":["AQID","base64"],"executable":false,"lamports":${U64_MAX},"owner":"${OWNER}","rentEpoch":${U64_MAX},"space":3}}`,
    };
    answers.getInflationRate = { result: '{"epoch":812,"foundation":0.0,"total":0.04251,"validator":0.04251}' };
    const ours = createRpcTransport({ url }).rpc;
    const kits = createSolanaRpc(url);
    const account = await ours.getAccountInfo(OWNER as Address, { encoding: 'base64' }).send();
    expect(account).toStrictEqual(await kits.getAccountInfo(OWNER as Address, { encoding: 'base64' }).send());
    expect(account.value?.lamports).toBe(BigInt(U64_MAX));
    expect(account.context.slot).toBe(BigInt(U64_MAX));
    const inflation = await ours.getInflationRate().send();
    expect(inflation).toStrictEqual(await kits.getInflationRate().send());
    expect(inflation.total).toBe(0.04251);
    expect((await client().getAccountInfo(OWNER))?.lamports).toBe(BigInt(U64_MAX));
  });

  it('answers the client methods as over kit default transport', async () => {
    answers.getSignatureStatuses = {
      result: '{"context":{"slot":345},"value":[{"slot":340,"confirmations":null,"err":null,"status":{"Ok":null},"confirmationStatus":"finalized"}]}',
    };
    answers.getEpochInfo = { result: '{"absoluteSlot":345,"blockHeight":300,"epoch":0,"slotIndex":345,"slotsInEpoch":432,"transactionCount":9}' };
    const ours = client();
    const kits = kitClient();
    expect(await ours.getSignatureStatus(SIGNATURE)).toStrictEqual(await kits.getSignatureStatus(SIGNATURE));
    expect(await ours.getEpochInfo()).toStrictEqual(await kits.getEpochInfo());
    expect(await ours.getSignatureStatus(SIGNATURE)).toStrictEqual({ confirmationStatus: 'finalized', err: null, slot: 340 });
  });

  it('reads a gzip-encoded answer', async () => {
    answers.getEpochInfo = { gzip: true, result: '{"absoluteSlot":7,"blockHeight":6,"epoch":1,"slotIndex":2,"slotsInEpoch":5}' };
    expect(await client().getEpochInfo()).toStrictEqual({ epoch: 1, slotIndex: 2, slotsInEpoch: 5, absoluteSlot: 7, blockHeight: 6 });
  });
});

describe('JSON-RPC errors', () => {
  const preflight = {
    code: -32002,
    message: 'Transaction simulation failed: Blockhash not found',
    data: { accounts: null, err: 'BlockhashNotFound', innerInstructions: null, logs: [], replacementBlockhash: null, returnData: null, unitsConsumed: 0 },
  };

  it('are data on the write paths, the same as over kit default transport', async () => {
    answers.simulateTransaction = { error: preflight };
    answers.sendTransaction = { error: preflight };
    const sent = await client().sendTransaction('AQID');
    expect(sent).toMatchObject({ ok: false, code: -32002 });
    expect(sent).toStrictEqual(await kitClient().sendTransaction('AQID'));
    expect(await client().simulateTransaction('AQID')).toStrictEqual(await kitClient().simulateTransaction('AQID'));
  });

  it('are an upstream_unavailable fault on reads', async () => {
    answers.getLatestBlockhash = { error: { code: -32005, message: 'Node is unhealthy' } };
    const rejection = client().getLatestBlockhash();
    await expect(rejection).rejects.toBeInstanceOf(ServiceError);
    await expect(rejection).rejects.toEqual(fault('upstream_unavailable', { details: { upstream: 'solana-rpc', rpcCode: -32005 } }));
  });
});

describe('transport faults', () => {
  it.each([500, 503])('HTTP %i is upstream_unavailable, on reads and on writes', async (status) => {
    answers.getEpochInfo = { status, result: '{}' };
    answers.sendTransaction = { status, result: '"x"' };
    await expect(client().getEpochInfo()).rejects.toEqual(fault('upstream_unavailable'));
    await expect(client().sendTransaction('AQID')).rejects.toEqual(fault('upstream_unavailable'));
  });

  it('a server that never answers is upstream_timeout after the time limit', async () => {
    answers.getEpochInfo = { hang: true };
    await expect(client(20).getEpochInfo()).rejects.toEqual(fault('upstream_timeout', { message: 'Solana RPC getEpochInfo did not answer within 20 ms' }));
  });

  it("the caller's signal aborts the request with its reason", async () => {
    answers.getEpochInfo = { hang: true };
    const caller = new AbortController();
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const call = client().getEpochInfo(caller.signal);
    await reached;
    const reason = new Error('the client went away');
    caller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(client().getEpochInfo(caller.signal)).rejects.toBe(reason);
  });
});

describe('connections', () => {
  it('sequential calls reuse one kept-alive connection', async () => {
    answers.getEpochInfo = { result: '{"absoluteSlot":7,"blockHeight":6,"epoch":1,"slotIndex":2,"slotsInEpoch":5}' };
    const rpc = client();
    for (let i = 0; i < 5; i++) await rpc.getEpochInfo();
    expect(requests).toBe(5);
    expect(connections).toBe(1);
  });
});
