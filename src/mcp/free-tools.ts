/**
 * The free MCP tools: the catalog with prices and inputs, and the free HTTP endpoints an agent
 * needs around a paid call (health, the ledger's tail, inclusion proofs, receipt verification,
 * signed checkpoints). Those are served by the HTTP routes themselves, called in-process through
 * `FreeRouteCall` (the routes live in the HTTP layer above this one), so a tool answers exactly
 * what its endpoint answers, errors included.
 */
import { CATALOG } from '../catalog/endpoints.ts';
import { describeInputs } from '../catalog/discovery.ts';
import { formatUsd } from '../catalog/format-usd.ts';
import type { HttpReply } from '../errors.ts';
import { toolNameOf, type ToolCall } from './paid-tools.ts';
import { argumentsToQuery } from './tool-arguments.ts';
import { errorResult, jsonResult, resultOfReply, type ToolDefinition, type ToolResult } from './tool-result.ts';

/** One in-process request to a free HTTP route. */
export interface FreeRouteRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Query string without `?`. */
  readonly query: string;
  /** JSON body of a POST, or null. */
  readonly body: string | null;
  readonly signal: AbortSignal;
}

/** Serves a free HTTP route in-process and returns its reply. */
export type FreeRouteCall = (request: FreeRouteRequest) => Promise<HttpReply>;

interface RouteTool extends ToolDefinition {
  readonly method: 'GET' | 'POST';
  readonly path: string;
}

const integer = (description: string, minimum: number, maximum?: number) => ({ type: 'integer', description, minimum, ...(maximum ? { maximum } : {}) });
const noArguments = { type: 'object', properties: {} } as const;

const ROUTE_TOOLS: readonly RouteTool[] = [
  {
    name: 'health',
    title: 'Service health',
    description: 'Liveness, version, ledger head, kill-switch state and request metrics (GET /health).',
    method: 'GET',
    path: '/health',
    inputSchema: noArguments,
  },
  {
    name: 'ledger_tail',
    title: 'Latest ledger entries',
    description: 'The newest entries of the public hash-chained ledger with the tree size, chain head and Merkle root (GET /ledger).',
    method: 'GET',
    path: '/ledger',
    inputSchema: { type: 'object' as const, properties: { limit: integer('Entries returned (1-1000, default 400).', 1, 1000) } },
  },
  {
    name: 'trust_proof',
    title: 'Merkle inclusion proof',
    description: 'The inclusion proof of a ledger entry (a receipt names its entry in ledgerIndex), with the entry itself (GET /trust/proof).',
    method: 'GET',
    path: '/trust/proof',
    inputSchema: {
      type: 'object' as const,
      required: ['index'],
      properties: {
        index: integer('Ledger index of the entry.', 0),
        treeSize: integer('Tree size to prove against (default: the current size).', 1),
        format: { type: 'string', enum: ['spec', 'rfc6962'], description: 'Hash rule: spec (default) or rfc6962.' },
      },
    },
  },
  {
    name: 'verify_receipt',
    title: 'Verify a receipt',
    description:
      'Checks a receipt (the base64 of _meta["x402/receipt"] or of the X-Service-Receipt header): signature, key and ledger entry; optionally the saved answer (POST /trust/verify).',
    method: 'POST',
    path: '/trust/verify',
    inputSchema: {
      type: 'object' as const,
      required: ['receipt'],
      properties: {
        receipt: { type: 'string', description: 'The receipt, base64 as served.' },
        body: { type: 'string', description: 'Base64 of the saved answer body, to compare with responseSha256.' },
        bodySha256: { type: 'string', description: 'Or the hex SHA-256 of the saved answer body.' },
      },
    },
  },
  {
    name: 'checkpoint',
    title: 'Signed ledger checkpoint',
    description: 'Tree size, both Merkle roots and the chain head, signed by the service identity (GET /trust/checkpoint).',
    method: 'GET',
    path: '/trust/checkpoint',
    inputSchema: noArguments,
  },
];

const catalogDefinition: ToolDefinition = {
  name: 'catalog',
  title: 'Paid tools and prices',
  description: 'Every paid tool with its endpoint, price, category, inputs and the example its sample uses.',
  inputSchema: noArguments,
};

function catalogAnswer(): Record<string, unknown> {
  const tools = CATALOG.map((e) => ({
    tool: toolNameOf(e.path),
    endpoint: e.path,
    price: formatUsd(e.priceUnits),
    priceUnits: e.priceUnits,
    category: e.category,
    summary: e.summary,
    inputs: describeInputs(e),
    example: e.example,
  }));
  return {
    count: tools.length,
    payment: 'x402 v2, scheme exact (USDC on Solana or Base) or batch-settlement (payment channels on Base, where offered), in _meta["x402/payment"]',
    tools,
  };
}

async function callRoute(tool: RouteTool, call: ToolCall, serve: FreeRouteCall): Promise<ToolResult> {
  if (tool.method === 'POST') {
    const body = JSON.stringify(Object.fromEntries(Object.keys(tool.inputSchema.properties).map((k) => [k, call.arguments[k]])));
    return resultOfReply(await serve({ method: 'POST', path: tool.path, query: '', body, signal: call.signal }));
  }
  const converted = argumentsToQuery(tool.inputSchema, call.arguments);
  if (!converted.ok) return errorResult(converted.error);
  return resultOfReply(await serve({ method: 'GET', path: tool.path, query: converted.query, body: null, signal: call.signal }));
}

export interface FreeTools {
  readonly definitions: readonly ToolDefinition[];
  /** The result of a free tool, or null when `call.name` is not one. */
  call(call: ToolCall): Promise<ToolResult> | null;
}

/** The free tools over the in-process route call. */
export function createFreeTools(serve: FreeRouteCall): FreeTools {
  const catalog = catalogAnswer();
  const routes = new Map(ROUTE_TOOLS.map((t) => [t.name, t]));
  return {
    definitions: [catalogDefinition, ...ROUTE_TOOLS.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema }))],
    call(call) {
      if (call.name === catalogDefinition.name) return Promise.resolve(jsonResult(catalog));
      const route = routes.get(call.name);
      return route ? callRoute(route, call, serve) : null;
    },
  };
}
