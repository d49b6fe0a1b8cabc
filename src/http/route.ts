/**
 * What a route is to the HTTP front end: a method, a path and a handler from a plain request to
 * a reply. Route modules depend on this contract, not on the server (which alone loads uWS).
 */
import type { HttpReply } from '../errors.ts';

/** One request, copied out of the server before any await. */
export interface HttpRequestData {
  readonly method: string;
  readonly path: string;
  /** Raw query string without `?`. */
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly remoteIp: string;
  readonly body: Buffer | null;
  /** Fires when the client disconnects before the answer is written. */
  readonly signal: AbortSignal;
}

export type HttpHandler = (req: HttpRequestData) => HttpReply | Promise<HttpReply>;

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly handler: HttpHandler;
}
