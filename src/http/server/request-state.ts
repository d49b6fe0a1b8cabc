/**
 * What the front end keeps of one request while it runs, apart from uWS: when it started, whether
 * the client went away, and its AbortSignal, made only when a handler reads it. Most answers (a
 * 402 challenge, a 400, a cached document) are written in the same callback that received the
 * request and never need a signal; an AbortController per request was measurable on those paths.
 */
import { performance } from 'node:perf_hooks';
import type { HttpRequestData } from './route.ts';

/** One request from its arrival until its answer is written (or its client is gone). */
export interface RequestState {
  readonly started: number;
  /** The client went away: nothing may be written to it any more. */
  clientGone: boolean;
  /** Set when the request was aborted (client gone, or the drain deadline); a signal made later starts aborted. */
  abortReason: unknown;
  aborted: boolean;
  controller: AbortController | null;
  /** Registered for abort notifications and counted in flight (asynchronous requests only). */
  tracked: boolean;
  /** Its body is still arriving: no handler runs yet, so an abort ends it at once. */
  readingBody: boolean;
  /** A HEAD request: answered with the GET's headers and no content. */
  head: boolean;
  /** Its path and its client's address, for the free limit's byte bound. */
  readonly path: string;
  readonly client: string;
}

/**
 * A request's state as a class: V8 allocates an instance inline, where a literal of ten fields was
 * copied from its boilerplate on every request. `performance` is node:perf_hooks': Node's global
 * `performance` is an accessor, a getter call per read on a path that reads the clock per request.
 */
class FreshRequestState implements RequestState {
  readonly started = performance.now();
  clientGone = false;
  abortReason: unknown = undefined;
  aborted = false;
  controller: AbortController | null = null;
  tracked = false;
  readingBody = false;
  constructor(
    public head: boolean,
    readonly path: string,
    readonly client: string,
  ) {}
}

/** A fresh state for a request that arrived now. */
export function createRequestState(head = false, path = '', client = ''): RequestState {
  return new FreshRequestState(head, path, client);
}

/** The request's signal, made on first use (already aborted if the request was). */
export function signalOf(state: RequestState): AbortSignal {
  if (state.controller === null) {
    state.controller = new AbortController();
    if (state.aborted) state.controller.abort(state.abortReason);
  }
  return state.controller.signal;
}

/** Aborts the request: its signal fires now, or starts aborted when a handler reads it later. */
export function abortRequest(state: RequestState, reason?: unknown): void {
  if (state.aborted) return;
  state.aborted = true;
  state.abortReason = reason;
  state.controller?.abort(reason);
}

/** The copied request a handler receives; `signal` is made when first read. */
export class CopiedRequest implements HttpRequestData {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly remoteIp: string,
    readonly body: Buffer | null,
    private readonly state: RequestState,
  ) {}

  get signal(): AbortSignal {
    return signalOf(this.state);
  }
}

/** True for a value a handler returned as a promise (anything thenable). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
