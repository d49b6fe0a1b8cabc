/**
 * The faults of the service and the one path from a fault to the reply it becomes: fault codes
 * map to HTTP statuses here and nowhere else. Expected outcomes (bad payment, unknown mint) are
 * returned as data by their modules; a ServiceError is thrown only when a request cannot be
 * answered as asked, and a ConfigError only when the service cannot start as configured.
 */

/** Every fault code the service answers with, and its HTTP status. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  missing_parameter: 400,
  repeated_parameter: 400,
  /** A parameter the endpoint does not define: refused, since a misspelt optional rule would otherwise be dropped in silence. */
  unknown_parameter: 400,
  invalid_transaction: 400,
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  payment_invalid: 402,
  duplicate_settlement: 402,
  settlement_failed: 402,
  not_found: 404,
  method_not_allowed: 405,
  payment_identifier_conflict: 409,
  /** A plain GET of a WebSocket feed (e.g. /ledger/live). */
  upgrade_required: 426,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  rate_limited: 429,
  /** The free daily preview of this client (or the day's preview capacity) is used; `Retry-After` says until when (docs/preview.md). */
  preview_limit_reached: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  upstream_timeout: 502,
  /** The RPC will not list this mint's holders (JSON-RPC -32010: excluded from secondary indexes; docs/contract.md#response-fields). */
  snapshot_unavailable: 502,
  service_stopped: 503,
  /** The data dir refused a write the payment needs before it may reach the chain (a full disk): nothing was charged. */
  storage_unavailable: 503,
  /** The PostgreSQL database (`--database-url`) refused, failed or did not answer a read or write the payment needs: nothing was charged. */
  database_unavailable: 503,
  /**
   * The service holds as many payment records (pending settlements, answers kept for their retry,
   * payment channels) as it is configured to: a new paid call is refused before anything is charged.
   */
  payments_full: 503,
  /** Every WebSocket feed socket is taken (docs/storefront.md#the-live-ledger-feed). */
  feed_full: 503,
  /** Every paid stream socket of the instance is taken (docs/streams.md). */
  streams_full: 503,
  /** The CPU pool's queue is full (`--pool-max-queue`): a paid call is refused before its payment is verified, nothing charged; `Retry-After` says when to retry. */
  busy: 503,
  /** No checkpoint holding the asked ledger entry has its witnesses' quorum of cosignatures yet (`/trust/tlog-proof`); `Retry-After` says when to ask again. */
  checkpoint_pending: 503,
  shutting_down: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one sentence a client reads for each fault whose cause lies outside its request (an upstream,
 * the disk, the database, a bug). Fixed, so nothing of the fault's own text (a library's message
 * carrying an upstream URL, an API key, a connection string, a stack) reaches a client: that text
 * goes to the log (`replyForError`), where the process redacts configured URLs and keys.
 */
export const FAULT_MESSAGE = {
  internal_error: 'The service failed to answer this request.',
  upstream_unavailable: 'An upstream data source failed to answer; retry later.',
  upstream_timeout: 'An upstream data source did not answer in time; retry later.',
  snapshot_unavailable: "The RPC will not list this mint's holders (it excludes the mint from its secondary indexes).",
  settlement_failed: 'The payment could not be settled; nothing was charged.',
  storage_unavailable: 'The service could not record this payment on its disk; nothing was charged; retry later.',
  database_unavailable: 'The service could not reach its database; nothing was charged; retry later.',
} as const satisfies Partial<Record<ErrorCode, string>>;

/** The sentence a client reads for `code` when the code has a fixed one, else null. */
export function faultMessage(code: ErrorCode): string | null {
  return (FAULT_MESSAGE as Partial<Record<ErrorCode, string>>)[code] ?? null;
}

/** A parameter error names the parameter it is about (`*` for the query as a whole). */
interface ParamDetails {
  readonly param: string;
}

/** Details a code must carry; codes not listed carry free-form details or none. */
interface RequiredDetails {
  readonly invalid_parameter: ParamDetails;
  readonly missing_parameter: ParamDetails;
  readonly repeated_parameter: ParamDetails;
  readonly unknown_parameter: ParamDetails;
  readonly invalid_transaction: ParamDetails;
}

/** The machine-readable details of an error with code `C`, beside `error` and `message`. */
export type ErrorDetails<C extends ErrorCode> = (C extends keyof RequiredDetails ? RequiredDetails[C] : unknown) & Readonly<Record<string, unknown>>;

/** The error body of docs/contract.md#error-body, `{ error, message, ...details }`, typed per code. */
export type ErrorBody<C extends ErrorCode = ErrorCode> = { [K in C]: { readonly error: K; readonly message: string } & ErrorDetails<K> }[C];

/** The details argument of `new ServiceError(code, ...)`: required for the codes that must name something. */
type DetailsArgument<C extends ErrorCode> = C extends keyof RequiredDetails ? [details: ErrorDetails<C>] : [details?: ErrorDetails<C>];

/** A fault with a code, a sentence for humans and machine-readable details (e.g. `param`). */
export class ServiceError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: ErrorDetails<C>;

  constructor(code: C, message: string, ...details: DetailsArgument<C>) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = (details[0] ?? {}) as ErrorDetails<C>;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The error body this fault answers with: its details, then its code and its code's fixed sentence (or our own message). */
  get body(): ErrorBody<C> {
    return { ...this.details, error: this.code, message: faultMessage(this.code) ?? this.message } as ErrorBody<C>;
  }
}

/** Thrown while the service starts, with every configuration problem found, one per line (exit 2). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Thrown while the service starts when another process holds what it needs: its port, its data
 * directory. The message names it in words ("port 8402 is in use"); the exit status is 2.
 */
export class InUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InUseError';
  }
}

/** A reply as plain data: what routes and the payment processor return and the HTTP front end writes. */
export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/**
 * The JSON error reply of `body`, with the status its code maps to. No cache may keep it: an error
 * speaks of this request at this moment (a 402's terms, a refused payment, a limit, a tile not yet
 * in the tree), and a shared cache in front of the service must not serve it to anyone else.
 */
export function errorReply(body: ErrorBody, headers?: Readonly<Record<string, string>>): HttpReply {
  return {
    status: ERROR_STATUS[body.error],
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/** `text` on one log line (viem's messages run to twenty lines). */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The text of anything thrown, for the log only, on one line: its message and its causes' (undici's "fetch failed" says why in its cause). */
export function logText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return oneLine(parts.join(': '));
}

/**
 * The reply for anything thrown: a ServiceError answers with its code, details and its code's
 * sentence; unknown faults answer `internal_error`. The text of a fault with a fixed sentence
 * goes to the log instead, so an operator still learns why.
 */
export function replyForError(err: unknown): HttpReply {
  if (err instanceof ServiceError) {
    if (faultMessage(err.code) !== null) console.error(`fault ${err.code}: ${logText(err)}`);
    return errorReply(err.body);
  }
  console.error(`fault internal_error: ${logText(err)}`);
  return errorReply({ error: 'internal_error', message: FAULT_MESSAGE.internal_error });
}
