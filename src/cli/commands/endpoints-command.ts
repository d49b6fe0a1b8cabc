/**
 * `x402-intel endpoints [<path>]`: the paid endpoints with their prices and parameters, straight
 * from the catalog the service is generated from; with a path, that endpoint's description and a
 * ready-to-run example built from its catalog example.
 */
import { describeInputs } from '../../catalog/discovery.ts';
import { CATALOG, type EndpointEntry } from '../../catalog/endpoints.ts';
import { formatUsd } from '../../catalog/format-usd.ts';
import { takePositionals } from '../cli-args.ts';
import { EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { describeParams, findEndpoint } from '../endpoint-request.ts';

/** The catalog example of `entry` as a command line. */
export function exampleCall(entry: EndpointEntry): string {
  const params = Object.entries(entry.example).map(([name, value]) => ` --${name} ${value}`);
  return `x402-intel call ${entry.path}${params.join('')}`;
}

function asDocument(entry: EndpointEntry) {
  return {
    path: entry.path,
    price: formatUsd(entry.priceUnits),
    priceUnits: entry.priceUnits,
    category: entry.category,
    summary: entry.summary,
    params: describeInputs(entry),
    example: exampleCall(entry),
  };
}

function renderOne(entry: EndpointEntry, detailed: boolean): string {
  const params = describeParams(entry).map((line) => `    ${line}`);
  const head = `${entry.path}  ${formatUsd(entry.priceUnits)}  ${entry.summary}`;
  if (!detailed) return [head, ...params].join('\n');
  return [head, '', entry.description, '', 'Parameters:', ...(params.length ? params : ['    none']), '', `Example: ${exampleCall(entry)}`].join('\n');
}

/** Runs `endpoints`. */
export async function runEndpoints(ctx: CommandContext): Promise<ExitCode> {
  const [path] = takePositionals(ctx.args, ['<path>?']);
  if (path !== undefined) {
    const entry = findEndpoint(path);
    if (!entry) throw usageError(`unknown endpoint "${path.slice(0, 80)}"; x402-intel endpoints lists them`);
    ctx.out.result(asDocument(entry), () => renderOne(entry, true));
    return EXIT.ok;
  }
  ctx.out.result(
    CATALOG.map((e) => asDocument(e)),
    () => `${CATALOG.map((e) => renderOne(e, false)).join('\n\n')}\n\n${CATALOG.length} paid endpoints; x402-intel endpoints <path> shows one in full.`,
  );
  return EXIT.ok;
}
