/**
 * The witness's HTTP listener (node:http, as the RPC transport already uses): `POST
 * /add-checkpoint` only. Bodies are read up to MAX_ADD_CHECKPOINT_BYTES (413 beyond), and every
 * refusal is a JSON error, except the 409 whose body tlog-witness fixes. Keep-alive is left on: a
 * log submits to it after each checkpoint. Anyone who can reach it is held to a few seconds for a
 * request's head and body (Node checks its own deadlines only every 30 s unless told otherwise, so
 * a slow client held a socket for up to 40 s), to a share of the connections (witness-admission.ts)
 * and to a pace of requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ADD_CHECKPOINT_BYTES } from './add-checkpoint-request.ts';
import type { WitnessReply } from './add-checkpoint.ts';
import { createWitnessAdmission, WITNESS_LIMITS, type WitnessLimits } from './witness-admission.ts';

/** A request whose head has not arrived whole by then is cut. */
export const WITNESS_HEADERS_TIMEOUT_MS = 3_000;
/** A request that has not arrived whole (head and body) by then is cut. */
export const WITNESS_REQUEST_TIMEOUT_MS = 5_000;
/** How often Node looks for requests past those deadlines: a deadline holds to within this. */
export const WITNESS_DEADLINE_CHECK_MS = 250;
const ADD_CHECKPOINT_PATH = '/add-checkpoint';

export interface WitnessServerConfig {
  readonly host: string;
  readonly port: number;
  /** Answers one add-checkpoint body. */
  readonly addCheckpoint: (body: string) => Promise<WitnessReply>;
  /** Told about each answer (status and a short reason), never about keys. */
  readonly log?: (line: string) => void;
  /** The connection and request limits (default WITNESS_LIMITS). */
  readonly limits?: WitnessLimits;
  /** The request pace's clock (ms, monotonic); tests pin it. */
  readonly now?: () => number;
}

export interface WitnessServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const json = (status: number, error: string, message: string): WitnessReply => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify({ error, message }),
});

function send(res: ServerResponse, reply: WitnessReply): void {
  res.writeHead(reply.status, { 'Content-Type': reply.contentType, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

/** Reads the body, or null once it is larger than allowed. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_ADD_CHECKPOINT_BYTES) {
        resolve(null);
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function answer(config: Readonly<WitnessServerConfig>, req: IncomingMessage): Promise<WitnessReply> {
  const path = (req.url ?? '').split('?')[0];
  if (path !== ADD_CHECKPOINT_PATH) return json(404, 'not_found', 'A witness serves POST /add-checkpoint only.');
  if (req.method !== 'POST') return json(405, 'method_not_allowed', 'add-checkpoint takes POST.');
  const body = await readBody(req);
  if (body === null) return json(413, 'payload_too_large', `The body is larger than ${MAX_ADD_CHECKPOINT_BYTES} bytes.`);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  if (text.includes('\uFFFD')) return json(400, 'invalid_request', 'The body must be UTF-8 text.');
  return config.addCheckpoint(text);
}

/** The 429 of a client past its pace. */
function tooFast(retryAfterSeconds: number): WitnessReply {
  return json(429, 'rate_limited', `Too many requests from this client; retry in ${retryAfterSeconds} s.`);
}

/** Starts the listener; resolves once it is bound. */
export async function startWitnessServer(config: Readonly<WitnessServerConfig>): Promise<WitnessServer> {
  const admission = createWitnessAdmission(config.limits ?? WITNESS_LIMITS, config.now);
  const deadlines = {
    headersTimeout: WITNESS_HEADERS_TIMEOUT_MS,
    requestTimeout: WITNESS_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: WITNESS_DEADLINE_CHECK_MS,
  };
  const server = createServer(deadlines, (req, res) => {
    const wait = admission.request(req.socket.remoteAddress ?? '');
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      res.setHeader('Connection', 'close');
      return send(res, tooFast(wait));
    }
    answer(config, req)
      .then((reply) => {
        config.log?.(`${req.method} ${(req.url ?? '').slice(0, 64)} -> ${reply.status}`);
        if (reply.status === 413) res.setHeader('Connection', 'close');
        send(res, reply);
      })
      .catch((err: unknown) => {
        // Cut by a deadline, or its client left mid-body: nobody to answer, nothing went wrong here.
        if (req.destroyed || res.destroyed) return;
        // The state file could not be written: nothing was cosigned; the operator reads why.
        console.error(`witness: ${err instanceof Error ? err.message : String(err)}`);
        send(res, json(500, 'internal_error', 'The witness failed to answer this request.'));
      });
  });
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    if (!admission.opened(address)) return void socket.destroy();
    socket.once('close', () => admission.closed(address));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
