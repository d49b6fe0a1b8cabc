/**
 * The official MCP client (`@modelcontextprotocol/client`) against the service's `/mcp`, on either
 * protocol era: `legacy` is the 2025-11-25 handshake, `modern` pins 2026-07-28.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type McpEra = 'legacy' | 'modern';

/** A tool result as the tests read it. */
export interface ToolResultJson {
  readonly content: { type: string; text: string }[];
  readonly structuredContent?: Record<string, any>;
  readonly isError?: boolean;
  readonly _meta?: Record<string, any>;
}

/** A connected client; close it when done. */
export async function mcpClient(baseUrl: string, era: McpEra = 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'x402-intel-tests', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  return client;
}

/** Calls a tool, with `_meta` when given. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResultJson> {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as unknown as ToolResultJson;
}

/** Headers of a raw 2025-11-25 stateless request (no handshake needed: each POST stands alone). */
export const RAW_MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A raw JSON-RPC `tools/call` POST, for what the client library hides (headers, aborts). */
export function rawToolCall(
  baseUrl: string,
  name: string,
  args: Record<string, unknown>,
  init: { meta?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
) {
  const params = { name, arguments: args, ...(init.meta ? { _meta: init.meta } : {}) };
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...RAW_MCP_HEADERS, ...init.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}
