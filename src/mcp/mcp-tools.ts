/**
 * Every MCP tool of the service, generated from the catalog: one per paid endpoint (an endpoint
 * added to the catalog is a tool with no other change), plus the free ones (`catalog`, `sample`
 * and the trust and health tools). Library-free: the MCP server module maps these onto the wire.
 */
import type { PaidHandlerLookup } from '../intel/handler-group.ts';
import type { PaidCaller } from '../x402/flow/paid-caller.ts';
import { createFreeTools, type FreeRouteCall } from './free-tools.ts';
import { createPaidTools, type ToolCall } from './paid-tools.ts';
import { createSampleTool } from './sample-tool.ts';
import type { ToolDefinition, ToolResult } from './tool-result.ts';

export interface McpToolsConfig {
  /** The paid caller HTTP uses too: one processor, one replay guard, one ledger. */
  readonly paid: PaidCaller;
  /** The paid handlers, for samples. */
  readonly handlers: PaidHandlerLookup;
  /** The free HTTP routes, called in-process. */
  readonly free: FreeRouteCall;
  /** How long a sample is served before it is computed again (default one minute). */
  readonly sampleTtlMs?: number;
}

export interface McpTools {
  /** What `tools/list` answers: free tools first, then the paid ones in catalog order. */
  readonly definitions: readonly ToolDefinition[];
  /** The tool's result, or null when no tool has that name. */
  call(call: ToolCall): Promise<ToolResult> | null;
}

/** Creates the tools. */
export function createMcpTools(config: McpToolsConfig): McpTools {
  const paid = createPaidTools(config.paid);
  const free = createFreeTools(config.free);
  const sample = createSampleTool({ handlers: config.handlers, ...(config.sampleTtlMs !== undefined ? { ttlMs: config.sampleTtlMs } : {}) });
  return {
    definitions: [...free.definitions, sample.definition, ...paid.definitions],
    call(call) {
      if (call.name === sample.definition.name) return sample.call(call.arguments, call.signal);
      return free.call(call) ?? paid.call(call);
    },
  };
}
