/**
 * The local EVM's Ethereum JSON-RPC 2.0 endpoint on node:http (loopback): every standard method
 * goes to EDR unchanged; `localnet_fundStablecoin(address, amountUnits)` mints LocalUsdc, as the
 * Solana localnet's method of the same name mints its stablecoin. Bad input answers JSON-RPC
 * errors and never takes the server down.
 */
import { readRequestBody } from '../read-request-body.ts';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EdrChain, RpcAnswer } from './edr-chain.ts';

/** Largest request body accepted. */
export const MAX_EVM_RPC_BODY_BYTES = 1024 * 1024;
/** Largest batch accepted. */
export const MAX_EVM_RPC_BATCH = 100;
/** Largest single faucet grant, units (1e12 = one million dollars at 6 decimals). */
export const MAX_FAUCET_UNITS = 1_000_000_000_000n;

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export interface EvmRpcServerConfig {
  readonly chain: EdrChain;
  readonly host: string;
  readonly port: number;
  readonly fundStablecoin: (address: string, amountUnits: bigint) => Promise<string>;
}

export interface EvmRpcServer {
  readonly url: string;
  close(): Promise<void>;
}

type Reply = { jsonrpc: '2.0'; id: unknown } & RpcAnswer;

function errorReply(id: unknown, code: number, message: string): Reply {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function parseUnits(value: unknown): bigint | null {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,30}$/.test(text)) return null;
  const units = BigInt(text);
  return units > 0n && units <= MAX_FAUCET_UNITS ? units : null;
}

async function fundStablecoinMethod(params: readonly unknown[], config: EvmRpcServerConfig): Promise<RpcAnswer> {
  const [address, amount] = params;
  if (typeof address !== 'string' || !ADDRESS_RE.test(address))
    return { error: { code: -32602, message: 'Invalid params: address must be a 0x-prefixed 20-byte hex address' } };
  const units = parseUnits(amount);
  if (units === null) return { error: { code: -32602, message: `Invalid params: amountUnits must be an integer 1-${MAX_FAUCET_UNITS}` } };
  return { result: await config.fundStablecoin(address, units) };
}

/** Runs one request object (notifications are answered too: EDR has none worth skipping). */
async function handleOne(request: unknown, config: EvmRpcServerConfig): Promise<Reply> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return errorReply(null, -32600, 'Invalid request');
  const req = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
  const id = req.id ?? null;
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') return errorReply(id, -32600, 'Invalid request');
  const params = Array.isArray(req.params) ? req.params : req.params === undefined ? [] : null;
  if (params === null) return errorReply(id, -32602, 'Invalid params: params must be an array');
  try {
    const answer = req.method === 'localnet_fundStablecoin' ? await fundStablecoinMethod(params, config) : await config.chain.request(req.method, params);
    return { jsonrpc: '2.0', id, ...answer };
  } catch (e) {
    return errorReply(id, -32603, `Internal error: ${(e as Error)?.message ?? String(e)}`);
  }
}

async function handleBody(body: string, config: EvmRpcServerConfig): Promise<unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return errorReply(null, -32700, 'Parse error');
  }
  if (!Array.isArray(parsed)) return handleOne(parsed, config);
  if (parsed.length === 0 || parsed.length > MAX_EVM_RPC_BATCH)
    return errorReply(null, -32600, `Invalid request: a batch holds 1-${MAX_EVM_RPC_BATCH} requests`);
  // In order, not in parallel: EDR serializes anyway, and order keeps nonces predictable.
  const replies: Reply[] = [];
  for (const r of parsed) replies.push(await handleOne(r, config));
  return replies;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Listens on host:port (0 = ephemeral) and returns the URL. */
export async function startEvmRpcServer(config: EvmRpcServerConfig): Promise<EvmRpcServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return send(res, 405, errorReply(null, -32600, 'Use POST with a JSON-RPC body'));
    readRequestBody(req, MAX_EVM_RPC_BODY_BYTES)
      .then(async (body) =>
        body === null ? send(res, 413, errorReply(null, -32600, 'Request body too large')) : send(res, 200, await handleBody(body, config)),
      )
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
