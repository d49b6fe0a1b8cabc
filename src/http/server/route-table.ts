/**
 * How the front end finds a request's handler: exact paths first, then path prefixes (e.g.
 * `/preview/`, `/assets/`); an unknown path answers 404 and a known path with another method 405
 * naming what it allows. Also the status line texts and CORS headers the front end writes. No
 * uWS here: the server asks this table.
 */
import { errorReply, type HttpReply } from '../../errors.ts';
import type { AnyReply, HttpHandler, Route } from './route.ts';

/** On every reply: any origin may call, and read the payment and receipt headers. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Service-Receipt, Retry-After',
};
/** Added to CORS_HEADERS (which every reply carries) on a preflight answer. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, PAYMENT-SIGNATURE, X-PAYMENT, Authorization, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
  'Access-Control-Max-Age': '86400',
};

/** The reason phrase of each status the service answers with. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  101: 'Switching Protocols',
  200: 'OK',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Finds the handler of a method and path, or the 404/405 reply. */
export type RouteLookup = (method: string, path: string) => HttpHandler<AnyReply> | HttpReply;

/** The lookup over exact routes and prefix routes (tried in order after exact paths). */
export function createRouteTable(routes: readonly Route<AnyReply>[], prefixes: readonly Route<AnyReply>[]): RouteLookup {
  const exact = new Map<string, Map<string, HttpHandler<AnyReply>>>();
  for (const r of routes) {
    const byMethod = exact.get(r.path) ?? new Map<string, HttpHandler<AnyReply>>();
    byMethod.set(r.method, r.handler);
    exact.set(r.path, byMethod);
  }
  return (method, path) => {
    const byMethod =
      exact.get(path) ?? prefixes.filter((r) => path.startsWith(r.path)).reduce((m, r) => m.set(r.method, r.handler), new Map<string, HttpHandler<AnyReply>>());
    if (byMethod.size === 0) return errorReply({ error: 'not_found', message: `no such endpoint: ${path.slice(0, 256)}` });
    const handler = byMethod.get(method);
    if (handler) return handler;
    const allow = [...byMethod.keys(), 'OPTIONS'].join(', ');
    return errorReply({ error: 'method_not_allowed', message: `${method} is not allowed on ${path}; use ${allow}` }, { Allow: allow });
  };
}
