/**
 * `POST /mcp` on the uWS front end: the copied request (its body already read under the front
 * end's size limit) becomes a web `Request` for the MCP endpoint, whose `Response` goes back as a
 * reply, or streamed when it is server-sent events (with `X-Accel-Buffering: no`, so a proxy does
 * not hold the events back). The request's signal is the client going away, and reaches the tool
 * call. GET and DELETE on /mcp (session operations of a stateful server) answer 405, since only
 * POST is routed. Also the in-process call of the free routes the MCP free tools answer with.
 */
import { CATALOG } from '../../catalog/endpoints.ts';
import { errorReply, type HttpReply } from '../../errors.ts';
import type { FreeRouteCall } from '../../mcp/free-tools.ts';
import { createMcpEndpoint } from '../../mcp/mcp-server.ts';
import { createMcpTools } from '../../mcp/mcp-tools.ts';
import { toolNameOf } from '../../mcp/paid-tools.ts';
import { X402_PAYMENT_META } from '../../mcp/tool-result.ts';
import { createPaidCaller, type PaidCallerConfig } from '../../x402/flow/paid-caller.ts';
import type { AnyReply, HttpRequestData, Route } from '../server/route.ts';
import { STATUS_TEXT } from '../server/route-table.ts';
import { CHUNK_FRAME_BYTES, contentBytes, headBytes } from '../server/wire-bytes.ts';
import { MAX_BODY_BYTES } from '../server/server.ts';

/** Where the MCP endpoint is served. */
export const MCP_PATH = '/mcp';

export interface McpRouteConfig {
  readonly serviceName: string;
  readonly version: string;
  /** Public base URL; known only after listen when the port is ephemeral. */
  readonly baseUrl: () => string;
  /** What the paid HTTP routes are built from: paid tools share their caller's processor. */
  readonly paid: PaidCallerConfig;
  /** The free routes the free tools answer with. */
  readonly freeRoutes: readonly Route[];
  /** How long a sample is served before it is computed again (default one minute). */
  readonly sampleTtlMs?: number;
  /**
   * The per-client limit of `count` calls of one request (client-admission.ts): a 429 reply, or
   * null to go on. Absent: no limit.
   */
  readonly admitCalls?: (client: string, count: number) => HttpReply | null;
  /**
   * Spends bytes sent to a client without a payment (the free limit's byte bound): each answer's
   * share of its unpaid calls (a paid call's answer is paid for). Absent: no byte bound.
   */
  readonly sentBytes?: (client: string, bytes: number) => boolean;
}

/** The MCP route, and the end of the endpoint's in-flight exchanges (after the server drained). */
export interface McpRoute {
  readonly route: Route<AnyReply>;
  close(): Promise<void>;
}

function webRequest(url: string, req: HttpRequestData): Request | null {
  try {
    return new Request(url, { method: req.method, headers: Object.entries(req.headers), body: req.body, signal: req.signal });
  } catch {
    // A header value the Fetch API refuses (e.g. outside latin-1).
    return null;
  }
}

/** Framing headers uWS writes itself (length or chunking, keep-alive): the library's copies would repeat them. */
const FRAMING_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * Every MCP answer may carry payment state (a tool's PaymentRequired with its signed offers, a
 * paid result with its settlement and receipt): no cache may keep one, whatever the library set
 * (`no-transform` stays, as the library sends it for its event streams).
 */
const MCP_CACHE_CONTROL = 'no-store, no-transform';

async function replyOf(response: Response): Promise<AnyReply> {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !FRAMING_HEADERS.has(name) && name !== 'cache-control'));
  headers['cache-control'] = MCP_CACHE_CONTROL;
  if (response.body && (headers['content-type'] ?? '').startsWith('text/event-stream'))
    return { status: response.status, headers: { ...headers, 'x-accel-buffering': 'no' }, stream: response.body };
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
}

const PAID_TOOLS = new Set(CATALOG.map((e) => toolNameOf(e.path)));

/** A paid tool's call carrying a payment: the paid caller counts it (by whether its payment matches), not the free limit. */
function carriesPayment(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; _meta?: Record<string, unknown> } };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null || typeof params.name !== 'string') return false;
  return PAID_TOOLS.has(params.name) && typeof params._meta === 'object' && params._meta !== null && params._meta[X402_PAYMENT_META] !== undefined;
}

/**
 * The body as JSON (undefined when it is not JSON: the library answers the parse error), how many
 * calls of it the free limit counts (each element of a batch, at least one per request) and of
 * how many (`total`): the answer's bytes are spent in that share.
 */
export function countCalls(body: Buffer | null): { readonly parsed: unknown; readonly count: number; readonly total: number } {
  let parsed: unknown;
  try {
    parsed = body === null ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    return { parsed: undefined, count: 1, total: 1 };
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const counted = messages.filter((m) => !carriesPayment(m)).length;
  return messages.length === 0 ? { parsed, count: 1, total: 1 } : { parsed, count: counted, total: messages.length };
}

/**
 * The answer, its bytes spent from `client`'s in the share of its unpaid calls: a whole answer's
 * at once, a stream's head at once and each event as it passes.
 */
function meteredReply(reply: AnyReply, share: number, spend: (bytes: number) => void): AnyReply {
  const line = `${reply.status} ${STATUS_TEXT[reply.status] ?? 'Status'}`;
  if (!('stream' in reply)) {
    const length = contentBytes(reply.body);
    spend(Math.ceil((headBytes(line, reply.headers, length) + length) * share));
    return reply;
  }
  spend(Math.ceil(headBytes(line, reply.headers, null) * share));
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      spend(Math.ceil((chunk.byteLength + CHUNK_FRAME_BYTES) * share));
      out.enqueue(chunk);
    },
  });
  return { ...reply, stream: reply.stream.pipeThrough(counted) };
}

/** The MCP endpoint over the catalog's tools, and its route. */
export function createMcpRoute(config: McpRouteConfig): McpRoute {
  const tools = createMcpTools({
    paid: createPaidCaller(config.paid),
    handlers: config.paid.handlers,
    free: createRouteCall(config.freeRoutes),
    ...(config.sampleTtlMs !== undefined ? { sampleTtlMs: config.sampleTtlMs } : {}),
  });
  const endpoint = createMcpEndpoint({
    serviceName: config.serviceName,
    version: config.version,
    publicUrl: config.baseUrl,
    tools,
    maxBodyBytes: MAX_BODY_BYTES,
  });
  const route: Route<AnyReply> = {
    method: 'POST',
    path: MCP_PATH,
    async handler(req) {
      const { parsed, count, total } = countCalls(req.body);
      const refused = config.admitCalls?.(req.remoteIp, count);
      if (refused) return refused;
      const request = webRequest(`${config.baseUrl()}${req.path}${req.query ? `?${req.query}` : ''}`, req);
      const spend = config.sentBytes;
      const reply = request
        ? await replyOf(await endpoint.fetch(request, req.remoteIp, parsed))
        : errorReply({ error: 'invalid_request', message: 'a request header cannot be read' });
      return spend && count > 0 ? meteredReply(reply, count / total, (bytes) => spend(req.remoteIp, bytes)) : reply;
    },
  };
  return { route, close: () => endpoint.close() };
}

/**
 * Calls the GET or POST route of `path` in-process, as the MCP free tools do: the reply is the
 * route's own. Only routes that answer whole replies are reachable this way.
 */
export function createRouteCall(routes: readonly Route[]): FreeRouteCall {
  const byKey = new Map(routes.map((r) => [`${r.method} ${r.path}`, r.handler]));
  return async ({ method, path, query, body, signal }) => {
    const handler = byKey.get(`${method} ${path}`);
    if (!handler) return errorReply({ error: 'not_found', message: `no such endpoint: ${path}` });
    const headers: Record<string, string> = body === null ? {} : { 'content-type': 'application/json' };
    return handler({ method, path, query, headers, remoteIp: '', body: body === null ? null : Buffer.from(body), signal });
  };
}
