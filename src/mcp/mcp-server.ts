/**
 * The MCP endpoint on the official server library (`@modelcontextprotocol/server`), the only module
 * that imports it. Stateless Streamable HTTP through the library's web-standard handler: each
 * request gets a fresh server instance from the factory, serving protocol 2026-07-28 and, for older
 * clients, the stateless 2025-11-25 fallback; nothing is kept between requests, so nothing is lost
 * on a restart or between instances. The low-level `Server` is used because the tools are ours
 * end to end: their schemas come from the catalog, their arguments are validated by the HTTP
 * rules, and the x402 payment rides in `_meta`.
 *
 * Before the library sees a request, a present `Origin` must be this service's own: its public
 * URL's host or a loopback name (any port); any other is 403 (DNS-rebinding protection).
 */
import {
  createMcpHandler,
  localhostAllowedOrigins,
  type McpRequestContext,
  originValidationResponse,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { McpTools } from './mcp-tools.ts';

export interface McpEndpointConfig {
  readonly serviceName: string;
  readonly version: string;
  /** Public base URL (known after listen); its host is an allowed Origin. */
  readonly publicUrl: () => string;
  readonly tools: McpTools;
  /** Largest request body, bytes (the HTTP front end enforces the same bound first). */
  readonly maxBodyBytes: number;
  /** Out-of-band faults of the library (reporting only); default stderr. */
  readonly onError?: (err: Error) => void;
}

/** A web-standard MCP endpoint: one `Request` in, one `Response` (JSON or a finite SSE stream) out. */
export interface McpEndpoint {
  /**
   * `client` is the caller's address, for the per-client limits of paid tool calls; `parsedBody`
   * the body when the caller already parsed it (then it is not parsed again).
   */
  fetch(request: Request, client: string, parsedBody?: unknown): Promise<Response>;
  /** Ends in-flight exchanges of the current protocol; the stateless fallback holds nothing. */
  close(): Promise<void>;
}

const INSTRUCTIONS =
  'Solana token, wallet, execution, timing, market and DeFi intelligence. Paid tools cost a fixed price per call, paid with x402 ' +
  '(exact scheme, USDC on Solana or Base; or batch-settlement payment channels on Base where offered): call without payment to get the PaymentRequired terms, then retry with the signed ' +
  'PaymentPayload in _meta["x402/payment"]. The sample tool returns a free answer of any paid tool for fixed example parameters; ' +
  'catalog lists prices and inputs; paid results carry a signed receipt in _meta["x402/receipt"] that verify_receipt checks.';

/**
 * The tool list and the server description change only with a new version of the service, and are
 * the same for every caller: clients of protocol 2026-07-28 may keep them an hour, shared.
 */
const LIST_CACHE_HINT = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

/**
 * The library reports both its own faults and every request it refused (a malformed envelope, a
 * wrong header, an unsupported version). Refusals are answered to their client with a 4xx and say
 * nothing about the service, so only faults reach the log: a client cannot fill it.
 */
const CLIENT_REFUSAL_RE =
  /^(Rejected inbound request|Bad Request|Not Acceptable|Unsupported Media Type|Unsupported protocol version|Invalid Request|Method not allowed|Parse error)/;

function reportError(err: Error): void {
  if (!CLIENT_REFUSAL_RE.test(err.message)) console.error(`mcp: ${err.message}`);
}

/**
 * The caller's address rides through the library as the request's pass-through `authInfo` (no
 * token is involved: the library only hands it to the factory), the one field it carries intact
 * to both protocol eras.
 */
const CLIENT_EXTRA = 'x402IntelClient';

function clientOf(context: McpRequestContext): string {
  const client = context.authInfo?.extra?.[CLIENT_EXTRA];
  return typeof client === 'string' ? client : '';
}

/** Creates the endpoint over the tools. */
export function createMcpEndpoint(config: McpEndpointConfig): McpEndpoint {
  const list = { tools: config.tools.definitions.map((t) => ({ ...t })) };
  const factory = (context: McpRequestContext) => {
    const server = new Server(
      { name: config.serviceName, version: config.version },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
      },
    );
    server.setRequestHandler('tools/list', () => list);
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args, _meta } = request.params;
      // The library ends a call when its exchange ends; the HTTP request's own signal is the
      // client going away, which must also stop a paid call before it settles.
      const signal = context.requestInfo ? AbortSignal.any([ctx.mcpReq.signal, context.requestInfo.signal]) : ctx.mcpReq.signal;
      const client = clientOf(context);
      const result = await config.tools.call({ name, arguments: args ?? {}, meta: (_meta ?? {}) as Record<string, unknown>, signal, client });
      if (result === null) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return server.projectCallToolResult(result, undefined);
    });
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'stateless', maxRequestBodySize: config.maxBodyBytes, onerror: config.onError ?? reportError });
  let allowed: { url: string; hosts: string[] } | null = null;
  const allowedHosts = () => {
    const url = config.publicUrl();
    if (allowed?.url !== url) allowed = { url, hosts: [new URL(url).hostname, ...localhostAllowedOrigins()] };
    return allowed.hosts;
  };
  return {
    fetch: (request, client, parsedBody) =>
      Promise.resolve(
        originValidationResponse(request, allowedHosts()) ??
          handler.fetch(request, {
            authInfo: { token: '', clientId: '', scopes: [], extra: { [CLIENT_EXTRA]: client } },
            ...(parsedBody !== undefined ? { parsedBody } : {}),
          }),
      ),
    close: () => handler.close(),
  };
}
