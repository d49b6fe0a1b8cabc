/**
 * The CLI's HTTP: GET with a deadline, answers read whole as bytes (a receipt covers the exact
 * bytes), failures to connect as exit 5 naming the URL, and the service's error bodies as exit 1
 * with the service's own code and sentence. Everything the service sends is untrusted input.
 */
import type { TrustFetch } from '../receipt-checks/receipt-check.ts';
import { CliError, EXIT, toCliError } from './cli-error.ts';
import { SERVICE_URL_HINT, serviceHref } from './service-url.ts';

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

/**
 * GET `url` (or runs `send`) under a deadline; a failure to reach it is a CliError with exit 5
 * naming `url` and, when `url` is the service's (not an RPC's), how to name another service.
 */
export async function request(
  url: string,
  init: RequestInit = {},
  send: typeof fetch = fetch,
  timeoutMs = REQUEST_TIMEOUT_MS,
  service = true,
): Promise<Answer> {
  try {
    const res = await send(url, { ...init, headers: { accept: 'application/json', ...init.headers }, signal: AbortSignal.timeout(timeoutMs) });
    return await readAnswer(res);
  } catch (err) {
    throw service ? serviceFailure(err, url) : toCliError(err, url);
  }
}

/** A failure of a request to the service as a CliError; one that could not reach it names `url` and how to name another service. */
export function serviceFailure(err: unknown, url: string): CliError {
  const failure = toCliError(err, url);
  if (failure.code !== 'unreachable') return failure;
  return new CliError(failure.code, `${failure.message}; ${SERVICE_URL_HINT}`, failure.exit, failure.details);
}

/** `invalid_network: no settlement path ...` (a 402 challenge's `error`) or a bare code, split; null when it is neither. */
const REASON_RE = /^([a-z][a-z0-9_]*)(?::\s*([\s\S]*))?$/;

/** The `error` of the body, else of the x402 v2 PAYMENT-REQUIRED header (base64 JSON) a 402 may carry alone. */
function errorText(body: Readonly<Record<string, unknown>>, headers: Headers): string | null {
  if (typeof body.error === 'string') return body.error;
  const header = headers.get('payment-required');
  if (!header) return null;
  try {
    const challenge = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { error?: unknown };
    return typeof challenge.error === 'string' ? challenge.error : null;
  } catch {
    return null;
  }
}

/**
 * The service's answer other than 200 as a CliError (exit 1): its code (a 402's x402 reason) and
 * sentence, the HTTP status and the parameter named; a person reads all of it on one line,
 * `<what> answered HTTP <status> <code>: <sentence>`.
 */
export function serviceError(answer: Answer, what: string): CliError {
  const body = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Record<string, unknown>;
  const error = errorText(body, answer.headers);
  const parts = error === null ? null : REASON_RE.exec(error);
  const sentence = typeof body.message === 'string' ? body.message : parts ? parts[2] || null : error;
  const code = parts?.[1] ?? null;
  const status = `${what} answered HTTP ${answer.status}`;
  const plain = [status, code ? ` ${code}` : '', sentence ? `: ${sentence}` : ''].join('');
  const param = typeof body.param === 'string' ? { param: body.param } : {};
  return new CliError(code ?? `http_${answer.status}`, sentence ?? status, EXIT.failed, { status: answer.status, ...param }, plain);
}

/** GET of the service's public trust endpoints, as the client-side checks want it. */
export function createTrustFetch(base: string, send: typeof fetch = fetch): TrustFetch {
  return async (path) => {
    const answer = await request(serviceHref(base, path), {}, send);
    return { status: answer.status, body: answer.json ?? null };
  };
}

/** `/health` of the service, or null when it does not answer 200 with a JSON object (`strict`: an answer other than 200 throws its serviceError). */
export async function readHealth(base: string, strict = false): Promise<Readonly<Record<string, unknown>> | null> {
  const href = serviceHref(base, '/health');
  const answer = await request(href);
  if (strict && answer.status !== 200) throw serviceError(answer, href);
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
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) };
  const answer = await request(url, init, fetch, REQUEST_TIMEOUT_MS, false);
  const body = answer.json as { result?: unknown; error?: { message?: unknown } } | undefined;
  if (answer.status !== 200 || typeof body !== 'object' || body === null)
    throw new CliError('rpc_failed', `${method}: HTTP ${answer.status} from ${url}`, EXIT.failed);
  if (body.error) throw new CliError('rpc_failed', `${method}: ${String(body.error.message ?? 'error')}`, EXIT.failed);
  return body.result;
}
