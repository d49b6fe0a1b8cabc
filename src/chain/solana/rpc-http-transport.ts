/**
 * kit's RPC transport over `node:http` / `node:https` with a keep-alive agent, in place of kit's
 * default (`fetch`, then request coalescing): a paid call makes several RPC requests, and fetch's
 * machinery (web streams, header objects, its keep-alive parsing) cost more CPU per request than
 * the signature work of the whole call. What kit's default does and callers see is kept: the
 * message written and read with bigints (rpc-json.ts), a non-2xx answer rejected as kit's
 * `SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR`, the AbortSignal ending the request. The same POST
 * carries the JSON-RPC batches kit does not send (rpc-token-methods.ts), on the same connections.
 */
import { type Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest, Agent as NodeHttpAgent } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, SolanaError, type RpcTransport as KitRpcTransport } from '@solana/kit';
import { parseRpcJson, stringifyRpcJson } from './rpc-json.ts';

/**
 * An idle connection is closed after this long, below the 5 s keep-alive of common servers (Node's
 * own default) so that we, not the server, close it; a server's shorter `Keep-Alive: timeout=`
 * hint wins (Node's agent reads it).
 */
const RPC_IDLE_SOCKET_MS = 4_000;

const DECODERS: Readonly<Record<string, (buf: Buffer) => Promise<Buffer>>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};
const HEADERS = {
  accept: 'application/json',
  'accept-encoding': Object.keys(DECODERS).join(', '),
  'content-type': 'application/json; charset=utf-8',
} as const;

/** The agent of a URL's protocol; its sockets stay open between requests. */
function agentFor(url: URL): HttpAgent {
  const options = { keepAlive: true, timeout: RPC_IDLE_SOCKET_MS };
  return url.protocol === 'https:' ? new HttpsAgent(options) : new NodeHttpAgent(options);
}

function httpError(res: IncomingMessage): SolanaError {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
  return new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers, message: res.statusMessage ?? '', statusCode: res.statusCode ?? 0 });
}

/** The body of a 2xx answer as text, decompressed as its Content-Encoding says; else kit's HTTP error. */
function readAnswer(req: ClientRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        return reject(httpError(res));
      }
      readBody(res).then(resolve, reject);
    });
  });
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(new Error('the answer was cut short'));
    });
    res.once('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const encoding = res.headers['content-encoding']?.trim().toLowerCase();
      const decode = encoding && encoding !== 'identity' ? DECODERS[encoding] : undefined;
      if (encoding && encoding !== 'identity' && !decode) reject(new Error(`unsupported Content-Encoding ${encoding}`));
      else if (decode) decode(body).then((b) => resolve(b.toString('utf8')), reject);
      else resolve(body.toString('utf8'));
    });
  });
}

/** One JSON-RPC POST over a kept-alive connection: the request text in, the 2xx answer's text out. */
export type RpcHttpPost = (body: string, signal: AbortSignal | undefined) => Promise<string>;

/** The POST for `url` (http or https); one agent, so one connection pool, per poster. */
export function createRpcHttpPost(url: string): RpcHttpPost {
  const target = new URL(url);
  const agent = agentFor(target);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const base = {
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port,
    path: `${target.pathname}${target.search}`,
    method: 'POST',
    agent,
  };

  /**
   * Not retried, as fetch does not retry a POST: a send may have reached the chain. The idle
   * timeout below the server's keeps a reused socket from meeting the server's close.
   */
  return (body, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const req = send({ ...base, headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } });
      const onAbort = () => {
        req.destroy(signal!.reason);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      readAnswer(req)
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
      req.end(body);
    });
}

/** kit's transport over `post`: the message written and read with bigints as kit's default does. */
export function createRpcHttpTransport(post: RpcHttpPost): KitRpcTransport {
  return async function makeRequest({ payload, signal }) {
    return parseRpcJson(await post(stringifyRpcJson(payload), signal)) as never;
  };
}
