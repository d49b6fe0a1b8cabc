/**
 * The free `sample` tool: the live answer of a paid endpoint for its catalog example parameters,
 * so an agent can see what it would buy. The caller names only the endpoint, never parameters, so
 * samples cannot stand in for paid calls; each endpoint's sample is computed at most once per
 * `SAMPLE_TTL_MS` (single-flight: concurrent callers share one computation), which also bounds
 * the upstream work free traffic can cause. No payment, no receipt, no ledger entry.
 */
import { createSingleFlightCache } from '../caches/single-flight-cache.ts';
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { formatUsd } from '../catalog/format-usd.ts';
import { validateQuery } from '../catalog/validate-query.ts';
import { ServiceError } from '../errors.ts';
import type { PaidHandlerLookup } from '../intel/handler-group.ts';
import { toolNameOf } from './paid-tools.ts';
import { errorResult, jsonResult, type ToolDefinition, type ToolResult } from './tool-result.ts';

/** How long a sample answer is served before it is computed again. */
export const SAMPLE_TTL_MS = 60_000;
/** A sample's computation is shared by every caller, so no one caller's disconnect may stop it. */
const NEVER_ABORTED = new AbortController().signal;

export interface SampleToolConfig {
  readonly handlers: PaidHandlerLookup;
  readonly ttlMs?: number;
}

export interface SampleTool {
  readonly definition: ToolDefinition;
  call(args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolResult>;
}

interface Sample {
  readonly answer: Record<string, unknown>;
}

const TOOL_NAMES = CATALOG.map((e) => toolNameOf(e.path));

const definition: ToolDefinition = {
  name: 'sample',
  title: 'Free sample of a paid tool',
  description:
    'A paid tool\'s live answer for its fixed example parameters, free and marked "sample": true (computed at most once a minute per tool). ' +
    'Shows what a paid call returns before paying for one; the parameters cannot be chosen.',
  inputSchema: {
    type: 'object',
    required: ['endpoint'],
    properties: {
      endpoint: { type: 'string', description: `A paid tool name (e.g. token_risk) or its path (e.g. /v1/token-risk): ${TOOL_NAMES.join(', ')}.` },
    },
  },
};

function findEntry(endpoint: string): EndpointEntry | undefined {
  return CATALOG.find((e) => e.path === endpoint || toolNameOf(e.path) === endpoint);
}

/** Creates the sample tool over the paid handlers. */
export function createSampleTool(config: SampleToolConfig): SampleTool {
  const cache = createSingleFlightCache<Sample>({ max: CATALOG.length, ttlMs: config.ttlMs ?? SAMPLE_TTL_MS });

  async function load(entry: EndpointEntry): Promise<Sample> {
    const handler = config.handlers[entry.path as keyof PaidHandlerLookup];
    if (!handler) throw new ServiceError('upstream_unavailable', `${entry.path} has no data source in this deployment`);
    const example = validateQuery(entry, new URLSearchParams(entry.example).toString());
    // The catalog's examples are valid by construction (a unit test holds them to it).
    if (!example.ok) throw new ServiceError('internal_error', `the example of ${entry.path} does not validate`);
    return { answer: (await handler(example.value, NEVER_ABORTED)) as Record<string, unknown> };
  }

  return {
    definition,
    async call(args, signal) {
      const endpoint = args.endpoint;
      if (endpoint === undefined || endpoint === null) return errorResult({ error: 'missing_parameter', param: 'endpoint', message: 'endpoint is required' });
      const entry = typeof endpoint === 'string' ? findEntry(endpoint) : undefined;
      if (!entry)
        return errorResult({ error: 'invalid_parameter', param: 'endpoint', message: `endpoint must be one of ${TOOL_NAMES.join(', ')} (or their paths)` });
      try {
        const { value, loadedAtMs } = await cache.get(entry.path, () => load(entry), signal);
        return jsonResult({
          sample: true,
          tool: toolNameOf(entry.path),
          endpoint: entry.path,
          parameters: entry.example,
          price: formatUsd(entry.priceUnits),
          computedAtUtc: new Date(loadedAtMs).toISOString(),
          answer: value.answer,
        });
      } catch (err) {
        if (err instanceof ServiceError) return errorResult(err.body);
        if (signal.aborted) throw err;
        return errorResult({ error: 'internal_error', message: 'The service failed to compute this sample.' });
      }
    },
  };
}
