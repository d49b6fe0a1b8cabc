/**
 * The localnet's Solana JSON-RPC 2.0 server on node:http (uWebSockets.js is reserved for the
 * service front end): single and batch requests, Agave's wire format and error codes. Bad input
 * never crashes it: parse errors, unknown methods and bad params answer JSON-RPC errors, and an
 * unexpected exception in a method answers -32603 for that request only.
 */
import { readRequestBody } from '../read-request-body.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalChain } from '../chain/local-chain.ts';
import { ACCOUNT_METHODS } from './rpc-account-methods.ts';
import { CHAIN_METHODS } from './rpc-chain-methods.ts';
import type { RpcContext, RpcMethod, StablecoinFaucetConfig } from './rpc-context.ts';
import { HISTORY_METHODS } from './rpc-history-methods.ts';
import { stringifyRpcJson } from './rpc-json.ts';
import { paramList, RpcError, RPC_CODES } from './rpc-params.ts';
import { SUBMIT_METHODS } from './rpc-submit-methods.ts';

export type { StablecoinFaucetConfig } from './rpc-context.ts';

/** Largest request body accepted (batches of sendTransaction included). */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
/** Largest batch accepted. */
export const MAX_BATCH_REQUESTS = 1000;
/** Default scan limit before getTokenLargestAccounts answers "excluded from secondary indexes". */
export const DEFAULT_LARGEST_ACCOUNTS_SCAN_LIMIT = 10_000;

const METHODS: Readonly<Record<string, RpcMethod>> = { ...ACCOUNT_METHODS, ...CHAIN_METHODS, ...HISTORY_METHODS, ...SUBMIT_METHODS };

/** Server configuration. */
export interface RpcServerConfig {
  readonly chain: LocalChain;
  /** Default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** 0 picks an ephemeral port. */
  readonly port?: number;
  /** The local x402 stablecoin faucet; without it `localnet_fundStablecoin` is not offered. */
  readonly faucet?: StablecoinFaucetConfig | null;
  readonly largestAccountsScanLimit?: number;
  /** Mints answered with -32010 by getTokenLargestAccounts, as mainnet nodes do for huge mints. */
  readonly excludedFromSecondaryIndexes?: readonly string[];
}

/** A running server. */
export interface RpcServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

type JsonRpcReply = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

function errorReply(id: unknown, code: number, message: string, data?: unknown): JsonRpcReply {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

/** Runs one request object; null for a notification (no id), which gets no reply. */
export async function handleRpcRequest(request: unknown, ctx: RpcContext): Promise<JsonRpcReply | null> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return errorReply(null, RPC_CODES.invalidRequest, 'Invalid request');
  const req = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
  const id = req.id ?? null;
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') return errorReply(id, RPC_CODES.invalidRequest, 'Invalid request');
  const method = Object.hasOwn(METHODS, req.method) ? METHODS[req.method] : undefined;
  if (method === undefined) return errorReply(id, RPC_CODES.methodNotFound, 'Method not found');
  try {
    const result = await method(paramList(req.params), ctx);
    return 'id' in req ? { jsonrpc: '2.0', result, id } : null;
  } catch (e) {
    if (e instanceof RpcError) return errorReply(id, e.code, e.message, e.data);
    return errorReply(id, RPC_CODES.internalError, `Internal error: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Handles a whole HTTP body (single or batch); returns the JSON text, or null for no content. */
export async function handleRpcBody(body: string, ctx: RpcContext): Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return stringifyRpcJson(errorReply(null, RPC_CODES.parseError, 'Parse error'));
  }
  if (!Array.isArray(parsed)) {
    const reply = await handleRpcRequest(parsed, ctx);
    return reply === null ? null : stringifyRpcJson(reply);
  }
  if (parsed.length === 0) return stringifyRpcJson(errorReply(null, RPC_CODES.invalidRequest, 'Invalid request'));
  if (parsed.length > MAX_BATCH_REQUESTS)
    return stringifyRpcJson(errorReply(null, RPC_CODES.invalidRequest, `Invalid request: batch larger than ${MAX_BATCH_REQUESTS}`));
  const replies: JsonRpcReply[] = [];
  for (const request of parsed) {
    const reply = await handleRpcRequest(request, ctx);
    if (reply !== null) replies.push(reply);
  }
  return replies.length === 0 ? null : stringifyRpcJson(replies);
}

function send(res: ServerResponse, status: number, body: string | null, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' });
  res.end(body ?? '');
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: RpcContext): Promise<void> {
  if (req.method === 'OPTIONS') return send(res, 204, null);
  if (req.method === 'GET' && req.url === '/health') return send(res, 200, 'ok', 'text/plain');
  if (req.method !== 'POST') return send(res, 405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain');
  const body = await readRequestBody(req, MAX_REQUEST_BODY_BYTES);
  if (body === null) return send(res, 413, 'Payload Too Large', 'text/plain');
  const reply = await handleRpcBody(body, ctx);
  send(res, 200, reply);
}

/** Starts the server; resolves once it listens. */
export function startRpcServer(config: RpcServerConfig): Promise<RpcServer> {
  const ctx: RpcContext = {
    chain: config.chain,
    faucet: config.faucet ?? null,
    largestAccountsScanLimit: config.largestAccountsScanLimit ?? DEFAULT_LARGEST_ACCOUNTS_SCAN_LIMIT,
    excludedFromSecondaryIndexes: new Set(config.excludedFromSecondaryIndexes ?? []),
  };
  const server = createServer((req, res) => {
    route(req, res, ctx).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, stringifyRpcJson(errorReply(null, RPC_CODES.internalError, `Internal error: ${(e as Error)?.message}`)));
      else res.destroy();
    });
  });
  const host = config.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port ?? 0, host, () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
