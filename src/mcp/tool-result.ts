/**
 * MCP tool results as plain data, and the mapping of the service's replies onto them. A paid
 * call's reply comes from the same paid caller HTTP uses; here it becomes what the x402 MCP
 * transport (coinbase/x402 `specs/transports-v2/mcp.md`) prescribes:
 *
 * - a 200 is the answer (`structuredContent`, and the same JSON as text) with the settlement in
 *   `_meta["x402/payment-response"]` (the SettleResponse object) and our signed receipt in
 *   `_meta["x402/receipt"]`: the base64 value of the HTTP `X-Service-Receipt` header, byte for
 *   byte, so it goes unchanged to `verify_receipt` or `/trust/verify`; and where the call's time
 *   went in `_meta["x402/server-timing"]`, the value of the HTTP `Server-Timing` header;
 * - a 402 is an `isError` result whose `structuredContent` is the x402 `PaymentRequired` object
 *   (plus `x402/payment-response` when a settlement failed) and whose first text content is the
 *   spec's `{"x402/error": {"code": 402, "message", "data": PaymentRequired}}` wrapper;
 * - any other reply is an `isError` result carrying the service's error body
 *   (docs/contract.md#error-body), e.g. the same 400 reasons as HTTP.
 */
import type { ErrorBody, HttpReply } from '../errors.ts';
import { RECEIPT_HEADER } from '../receipts/receipt.ts';
import { SERVER_TIMING_HEADER } from '../x402/delivery/paid-timing.ts';

/** `params._meta` key of the PaymentPayload a client pays with. */
export const X402_PAYMENT_META = 'x402/payment';
/** `result._meta` key of the x402 SettleResponse of a paid result. */
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response';
/** `result._meta` key of the signed receipt (base64, as the HTTP `X-Service-Receipt` header). */
export const X402_RECEIPT_META = 'x402/receipt';
/** `result._meta` key of the paid call's phase timings (the HTTP `Server-Timing` value). */
export const X402_SERVER_TIMING_META = 'x402/server-timing';

/** A JSON value, as schemas and results are made of. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema of tool arguments: an object schema, whose properties are what the tool reads. */
export interface ArgumentsSchema {
  readonly [keyword: string]: unknown;
  readonly type: 'object';
  readonly properties: { [name: string]: { [keyword: string]: JsonValue } };
  readonly required?: string[];
}

/** One MCP tool as `tools/list` describes it. */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: ArgumentsSchema;
}

/** An MCP `CallToolResult` with text content only, which is all this service answers. */
export interface ToolResult {
  readonly [field: string]: unknown;
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly _meta?: Record<string, unknown>;
}

/** A successful result: `value` as structured content and as its JSON text. */
export function jsonResult(value: Record<string, unknown>, text = JSON.stringify(value), meta?: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value, ...(meta ? { _meta: meta } : {}) };
}

/** A failed tool answer carrying the service's error body. */
export function errorResult(body: ErrorBody | Record<string, unknown>, text = JSON.stringify(body)): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown>, isError: true };
}

/** The x402 MCP PaymentRequired result, with the settlement failure beside the terms when there is one. */
export function paymentRequiredResult(paymentRequired: Record<string, unknown>, settleFailure?: Record<string, unknown>): ToolResult {
  const data = settleFailure ? { ...paymentRequired, [X402_PAYMENT_RESPONSE_META]: settleFailure } : paymentRequired;
  const message = typeof paymentRequired.error === 'string' ? paymentRequired.error : 'Payment required';
  return { content: [{ type: 'text', text: JSON.stringify({ 'x402/error': { code: 402, message, data } }) }], structuredContent: data, isError: true };
}

const decodeBase64Json = (value: string): Record<string, unknown> => JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;

/** The tool result of a reply of the paid caller or of a free route (whose bodies are all JSON objects). */
export function resultOfReply(reply: HttpReply): ToolResult {
  const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
  const body = JSON.parse(text) as Record<string, unknown>;
  const headers = reply.headers ?? {};
  const settle = headers['PAYMENT-RESPONSE'];
  if (reply.status === 200) {
    const receipt = headers[RECEIPT_HEADER];
    const timing = headers[SERVER_TIMING_HEADER];
    const meta = {
      ...(settle ? { [X402_PAYMENT_RESPONSE_META]: decodeBase64Json(settle) } : {}),
      ...(receipt ? { [X402_RECEIPT_META]: receipt } : {}),
      ...(timing ? { [X402_SERVER_TIMING_META]: timing } : {}),
    };
    return jsonResult(body, text, Object.keys(meta).length > 0 ? meta : undefined);
  }
  // MCP has no headers: its PaymentRequired result carries the whole challenge, which over HTTP
  // travels only in PAYMENT-REQUIRED (the HTTP body is a short error).
  const challenge = headers['PAYMENT-REQUIRED'];
  if (challenge !== undefined) return paymentRequiredResult(decodeBase64Json(challenge), settle ? decodeBase64Json(settle) : undefined);
  return errorResult(body, text);
}
