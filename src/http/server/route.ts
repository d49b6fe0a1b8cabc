/**
 * What a route is to the HTTP front end: a method, a path and a handler from a plain request to
 * a reply. Route modules depend on this contract, not on the server (which alone loads uWS).
 */
import type { HttpReply } from '../../errors.ts';

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

/** A reply whose body is written as it is produced (a server-sent event stream). */
export interface StreamedReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body; cancelled when the client goes away. */
  readonly stream: ReadableStream<Uint8Array>;
}

/** A route's handler; a route that may stream says so in `R`. */
export type HttpHandler<R extends HttpReply | StreamedReply = HttpReply> = (req: HttpRequestData) => R | Promise<R>;

/** Any reply the front end writes. */
export type AnyReply = HttpReply | StreamedReply;

export interface Route<R extends AnyReply = HttpReply> {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly handler: HttpHandler<R>;
}
