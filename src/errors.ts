/**
 * The one fault type of the service and the one place where fault codes become HTTP statuses.
 * Expected outcomes (bad payment, unknown mint) are returned as data by their modules; a
 * ServiceError is thrown only when a request cannot be answered as asked.
 */

/** Every fault code the service answers with, and its HTTP status. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  missing_parameter: 400,
  repeated_parameter: 400,
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
  uri_too_long: 414,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  upstream_timeout: 502,
  /** The RPC will not list this mint's holders (JSON-RPC -32010: excluded from secondary indexes; docs/contract.md#response-fields). */
  snapshot_unavailable: 502,
  service_stopped: 503,
  shutting_down: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A fault with a code, a sentence for humans and machine-readable details (e.g. `param`). */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The error body of docs/contract.md#error-body: `{ error, message, ...details }`. */
export interface ErrorBody {
  readonly error: ErrorCode;
  readonly message: string;
  readonly [detail: string]: unknown;
}

/** Maps any thrown value to a status and error body; unknown faults never leak their message. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof ServiceError) {
    return { status: err.status, body: { ...err.details, error: err.code, message: err.message } };
  }
  return { status: 500, body: { error: 'internal_error', message: 'The service failed to answer this request.' } };
}
