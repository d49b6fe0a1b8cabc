/**
 * The witness's HTTP listener (node:http, as the RPC transport already uses): `POST
 * /add-checkpoint` only. Bodies are read up to MAX_ADD_CHECKPOINT_BYTES (413 beyond), slow
 * clients are cut by the request timeout, and every refusal is a JSON error, except the 409
 * whose body tlog-witness fixes. Keep-alive is left on: a log submits to it after each checkpoint.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ADD_CHECKPOINT_BYTES } from './add-checkpoint-request.ts';
import type { WitnessReply } from './add-checkpoint.ts';

/** A request that has not arrived whole by then is cut. */
export const WITNESS_REQUEST_TIMEOUT_MS = 10_000;
const ADD_CHECKPOINT_PATH = '/add-checkpoint';

export interface WitnessServerConfig {
  readonly host: string;
  readonly port: number;
  /** Answers one add-checkpoint body. */
  readonly addCheckpoint: (body: string) => Promise<WitnessReply>;
  /** Told about each answer (status and a short reason), never about keys. */
  readonly log?: (line: string) => void;
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

/** Starts the listener; resolves once it is bound. */
export async function startWitnessServer(config: Readonly<WitnessServerConfig>): Promise<WitnessServer> {
  const server = createServer({ requestTimeout: WITNESS_REQUEST_TIMEOUT_MS, headersTimeout: WITNESS_REQUEST_TIMEOUT_MS }, (req, res) => {
    answer(config, req)
      .then((reply) => {
        config.log?.(`${req.method} ${(req.url ?? '').slice(0, 64)} -> ${reply.status}`);
        if (reply.status === 413) res.setHeader('Connection', 'close');
        send(res, reply);
      })
      .catch((err: unknown) => {
        // The state file could not be written: nothing was cosigned; the operator reads why.
        console.error(`witness: ${err instanceof Error ? err.message : String(err)}`);
        send(res, json(500, 'internal_error', 'The witness failed to answer this request.'));
      });
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
