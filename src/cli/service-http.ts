/**
 * The CLI's HTTP: GET with a deadline, answers read whole as bytes (a receipt covers the exact
 * bytes), failures to connect as exit 5 naming the URL, and the service's error bodies as exit 1
 * with the service's own code and sentence. Everything the service sends is untrusted input.
 */
import type { TrustFetch } from '../client/receipt-check.ts';
import { CliError, EXIT, toCliError } from './cli-error.ts';
import { serviceHref } from './service-url.ts';

/** Deadline of a free request (health, trust, preview, localnet RPC), ms. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Deadline of a paid call: the service waits for the settlement to be confirmed before answering, ms. */
export const PAID_CALL_TIMEOUT_MS = 180_000;

/** An HTTP answer read whole: the exact body bytes, and their JSON when they parse. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  /** The parsed body; undefined when it is not JSON. */
  readonly json: unknown;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** Reads a Response whole. */
export async function readAnswer(res: Response): Promise<Answer> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: parseJson(bytes) };
}

/** GET `url` (or runs `send`) under a deadline; a failure to reach it is a CliError with exit 5 naming `url`. */
export async function request(url: string, init: RequestInit = {}, send: typeof fetch = fetch, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
  try {
    const res = await send(url, { ...init, headers: { accept: 'application/json', ...init.headers }, signal: AbortSignal.timeout(timeoutMs) });
    return await readAnswer(res);
  } catch (err) {
    throw toCliError(err, url);
  }
}

/** The service's error body as a CliError (exit 1): its code and sentence, the HTTP status and the parameter named. */
export function serviceError(answer: Answer, what: string): CliError {
  const body = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Record<string, unknown>;
  const code = typeof body.error === 'string' ? body.error : `http_${answer.status}`;
  const message = typeof body.message === 'string' ? body.message : `${what} answered HTTP ${answer.status}`;
  const param = typeof body.param === 'string' ? { param: body.param } : {};
  return new CliError(code, message, EXIT.failed, { status: answer.status, ...param });
}

/** GET of the service's public trust endpoints, as the client-side checks want it. */
export function createTrustFetch(base: string, send: typeof fetch = fetch): TrustFetch {
  return async (path) => {
    const answer = await request(serviceHref(base, path), {}, send);
    return { status: answer.status, body: answer.json ?? null };
  };
}

/** `/health` of the service, or null when it does not answer 200 with a JSON object. */
export async function readHealth(base: string, send: typeof fetch = fetch): Promise<Readonly<Record<string, unknown>> | null> {
  const answer = await request(serviceHref(base, '/health'), {}, send);
  const ok = answer.status === 200 && typeof answer.json === 'object' && answer.json !== null && !Array.isArray(answer.json);
  return ok ? (answer.json as Record<string, unknown>) : null;
}

/** The URLs of the embedded localnet that /health names, or null when the service is not in embedded mode. */
export function localnetUrls(health: Readonly<Record<string, unknown>> | null): { rpcUrl?: string; evmRpcUrl?: string } | null {
  const localnet = health?.localnet;
  if (typeof localnet !== 'object' || localnet === null) return null;
  const { rpcUrl, evmRpcUrl } = localnet as Record<string, unknown>;
  return { ...(typeof rpcUrl === 'string' ? { rpcUrl } : {}), ...(typeof evmRpcUrl === 'string' ? { evmRpcUrl } : {}) };
}

/** One JSON-RPC 2.0 call; a JSON-RPC error is a CliError (exit 1) carrying the server's message. */
export async function rpcCall(url: string, method: string, params: readonly unknown[]): Promise<unknown> {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = answer.json as { result?: unknown; error?: { message?: unknown } } | undefined;
  if (answer.status !== 200 || typeof body !== 'object' || body === null)
    throw new CliError('rpc_failed', `${method}: HTTP ${answer.status} from ${url}`, EXIT.failed);
  if (body.error) throw new CliError('rpc_failed', `${method}: ${String(body.error.message ?? 'error')}`, EXIT.failed);
  return body.result;
}
