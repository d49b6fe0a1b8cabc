/**
 * One MCP tool per paid endpoint of the catalog: the name from the path, the arguments schema from
 * the TypeBox schema that validates HTTP, the price in the description. A call goes through the
 * paid caller HTTP uses (one processor, one replay guard, one ledger), with the payment taken from
 * `_meta["x402/payment"]`. Its receipt's `resource` is `<path>?<query>` of the arguments in the
 * schema's order (docs/mcp.md#receipts).
 */
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { formatUsd } from '../catalog/format-usd.ts';
import type { PaidCaller } from '../x402/flow/paid-caller.ts';
import { argumentsToQuery, publishedSchema } from './tool-arguments.ts';
import { errorResult, resultOfReply, X402_PAYMENT_META, type ToolDefinition, type ToolResult } from './tool-result.ts';

/** The tool name of a paid path: `/v1/token-risk` is `token_risk`, `/v1/lending/markets` is `lending_markets`. */
export function toolNameOf(path: string): string {
  return path.replace(/^\/v1\//, '').replace(/[/-]/g, '_');
}

/** The resource URL a paid tool's PaymentRequired names. */
export function toolResourceUrl(name: string): string {
  return `mcp://tool/${name}`;
}

function definitionOf(entry: EndpointEntry): ToolDefinition {
  return {
    name: toolNameOf(entry.path),
    title: entry.summary,
    description:
      `${entry.description} Price: ${formatUsd(entry.priceUnits)} per call, paid with x402 (USDC on Solana or Base) in ` +
      `_meta["${X402_PAYMENT_META}"]; called without payment it answers the payment terms. The sample tool shows a free answer.`,
    inputSchema: publishedSchema(entry.query),
  };
}

/** A tool call as the MCP server hands it over. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `params._meta` of the request. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Fires when the client goes away or cancels the call. */
  readonly signal: AbortSignal;
  /** The caller's address as the HTTP front end saw it ('' when unknown). */
  readonly client: string;
}

export interface PaidTools {
  readonly definitions: readonly ToolDefinition[];
  /** The result of a paid tool, or null when `call.name` is not one. */
  call(call: ToolCall): Promise<ToolResult> | null;
}

/** The paid tools over the paid caller. */
export function createPaidTools(caller: PaidCaller): PaidTools {
  const byName = new Map(CATALOG.map((e) => [toolNameOf(e.path), e]));
  const definitions = new Map(CATALOG.map((e) => [toolNameOf(e.path), definitionOf(e)]));
  return {
    definitions: [...definitions.values()],
    call({ name, arguments: args, meta, signal, client }) {
      const entry = byName.get(name);
      if (!entry) return null;
      const converted = argumentsToQuery(definitions.get(name)!.inputSchema, args);
      if (!converted.ok) return Promise.resolve(errorResult(converted.error));
      const sent = meta[X402_PAYMENT_META];
      const payment = sent === undefined ? null : { object: sent };
      const attempt = { entry, client, query: converted.query, resourceUrl: toolResourceUrl(name), payment, signal };
      // Through a promise either way: a synchronous answer (a 402) or a throw becomes the tool's result or rejection.
      return Promise.resolve(attempt).then(caller).then(resultOfReply);
    },
  };
}
