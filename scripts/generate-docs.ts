/**
 * The tables in the docs that copy code are rendered from the code, never typed by hand: the
 * options (OPTIONS), the paid catalog (CATALOG), the MCP tools (generated from the catalog), the
 * preview rules (the catalog's `preview`), the error codes (ERROR_STATUS) and the import layers'
 * order (test/helpers/layer-map.ts, wherever a document states it). Each lives in
 * a docs file between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; everything
 * outside the markers is prose and left alone. It also writes the two source files derived from
 * the catalog and the handlers: the list of handler modules (src/intel/paid-handler-modules.ts)
 * and the digest of the bazaar declarations the official validators accepted
 * (src/service/bazaar-accepted.ts), so adding an endpoint is its entry, its handler and this run.
 *
 *   node --import tsx scripts/generate-docs.ts           rewrites the regions and the two files in place
 *   node --import tsx scripts/generate-docs.ts --check   exits 1 naming each drifted region or file, broken link and
 *                                                         path of the README's code map that does not exist
 *
 * test/unit/docs-drift.test.ts runs the same checks in `npm test`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CATALOG, type EndpointEntry } from '../src/catalog/endpoints.ts';
import { EXIT_STATUSES } from '../src/cli/help-text.ts';
import { OPTIONS } from '../src/config.ts';
import { ERROR_STATUS } from '../src/errors.ts';
import { createMcpTools } from '../src/mcp/mcp-tools.ts';
import { toolNameOf } from '../src/mcp/paid-tools.ts';
import { innerOrderLine, LAYER_RULES, layerOrderLine } from '../test/helpers/layer-map.ts';
import { BAZAAR_ACCEPTED_FILE, bazaarAcceptedRecord } from './bazaar-accepted.ts';
import { codeMapProblems } from './code-map.ts';
import { brokenCitations, brokenLinks, docFiles } from './docs-links.ts';
import { PAID_HANDLER_MODULES_FILE, paidHandlerModulesProblem, renderPaidHandlerModules } from './paid-handler-modules.ts';

/** The repository root (this file sits in scripts/). */
export const REPO_ROOT = resolve(import.meta.dirname, '..');

const cell = (text: string) => text.replace(/\|/g, '\\|');
const code = (text: string) => `\`${text}\``;
const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

function optionsTable(): string {
  const rows = OPTIONS.map((o) => [code(`--${o.flag}`), code(o.env), o.default === undefined ? '' : code(o.default), o.help]);
  return table(['flag', 'env var', 'default', 'meaning'], rows);
}

/** `$0.005 (5000)`: dollars with at least two decimals, then the atomic units (6 decimals). */
function price(units: number): string {
  const [whole, frac = ''] = String(units / 1_000_000).split('.');
  return `$${whole}.${frac.padEnd(2, '0')} (${units})`;
}

function parameters(entry: EndpointEntry): string {
  const schema = entry.query as { properties?: Record<string, unknown>; required?: readonly string[] };
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {})
    .map((name) => `${code(name)}${required.has(name) ? '' : '?'}`)
    .join(', ');
}

function catalogTable(): string {
  const rows = CATALOG.map((e) => [code(e.path), price(e.priceUnits), e.category, parameters(e), e.summary]);
  return table(['path', 'price', 'category', 'parameters', 'answers'], rows);
}

/** The MCP tools as `tools/list` answers them (their definitions need none of the callers). */
function mcpToolsTable(): string {
  const unused = () => Promise.reject(new Error('not called while rendering docs'));
  const prices = new Map(CATALOG.map((e) => [toolNameOf(e.path), e.priceUnits]));
  const rows = createMcpTools({ paid: unused, handlers: {}, free: unused }).definitions.map((d) => {
    const schema = d.inputSchema;
    const required = new Set(schema.required ?? []);
    const args = Object.keys(schema.properties).map((name) => `${code(name)}${required.has(name) ? '' : '?'}`);
    const units = prices.get(d.name);
    return [code(d.name), units === undefined ? 'free' : price(units), args.join(', '), d.title];
  });
  return table(['tool', 'price', 'arguments', 'answers'], rows);
}

/** What the free daily preview cuts from each paid answer (docs/preview.md). */
function previewRulesTable(): string {
  const rows = CATALOG.map((e) => {
    const cut = Object.entries(e.preview.cut).map(([path, keep]) => `${code(path)}: first ${keep}`);
    return [code(e.path), cut.join(', ') || 'none', e.preview.withhold.map(code).join(', ') || 'none'];
  });
  return table(['paid path', 'lists cut', 'fields withheld'], rows);
}

function errorCodesTable(): string {
  const byStatus = new Map<number, string[]>();
  for (const [name, status] of Object.entries(ERROR_STATUS)) byStatus.set(status, [...(byStatus.get(status) ?? []), code(name)]);
  const rows = [...byStatus].sort(([a], [b]) => a - b).map(([status, names]) => [String(status), names.join(', ')]);
  return table(['status', 'codes'], rows);
}

function cliExitStatusTable(): string {
  return table(
    ['status', 'meaning'],
    EXIT_STATUSES.map(([status, meaning]) => [String(status), meaning]),
  );
}

/** Every generated region by name, and how it is rendered from the code. */
export const GENERATORS: Readonly<Record<string, () => string>> = {
  options: optionsTable,
  catalog: catalogTable,
  'mcp-tools': mcpToolsTable,
  'cli-exit-statuses': cliExitStatusTable,
  'preview-rules': previewRulesTable,
  'error-codes': errorCodesTable,
  // The import layers, top first, from the rules test/unit/import-layers.test.ts enforces.
  'layer-order': () => layerOrderLine(LAYER_RULES),
  // The folders of src/x402, top first (siblings share a place), from the same rules.
  'x402-order': () => innerOrderLine('x402'),
};

const REGION_RE = /<!-- generated:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/generated:([a-z0-9-]+) -->/g;

/** One generated region of a document: its name and what stands between its markers. */
export interface Region {
  readonly name: string;
  readonly content: string;
}

/** The generated regions of a document; an unknown name or mismatched end marker throws. */
export function regionsOf(text: string): Region[] {
  return [...text.matchAll(REGION_RE)].map(([, name = '', content = '', end]) => {
    if (end !== name) throw new Error(`generated region "${name}" is closed by "${end}"`);
    if (!GENERATORS[name]) throw new Error(`no generator for region "${name}" (known: ${Object.keys(GENERATORS).join(', ')})`);
    return { name, content };
  });
}

/** The document with every generated region rendered from the code as it is now. */
export function regenerate(text: string): string {
  regionsOf(text);
  return text.replace(REGION_RE, (_all, name: string) => `<!-- generated:${name} -->\n${GENERATORS[name]!()}\n<!-- /generated:${name} -->`);
}

/** Names of the regions of `text` whose content is not what the code renders now. */
export function driftedRegions(text: string): string[] {
  return regionsOf(text)
    .filter((r) => r.content !== `${GENERATORS[r.name]!()}\n`)
    .map((r) => r.name);
}

/** Problems of the docs under `root`: drifted or missing regions, broken links and citations. */
export function docsProblems(root: string = REPO_ROOT): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const file of docFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const r of regionsOf(text)) seen.add(r.name);
    for (const name of driftedRegions(text)) problems.push(`${file}: generated region "${name}" differs from the code (run npm run docs)`);
  }
  for (const name of Object.keys(GENERATORS)) if (!seen.has(name)) problems.push(`no document holds the generated region "${name}"`);
  const modules = paidHandlerModulesProblem(root);
  if (modules) problems.push(modules);
  return [...problems, ...brokenLinks(root), ...brokenCitations(root), ...codeMapProblems(root)];
}

/** Writes `text` to `file` (from the root) when it differs, saying so. */
function rewrite(file: string, text: string): void {
  const path = join(REPO_ROOT, file);
  if (readFileSync(path, 'utf8') === text) return;
  writeFileSync(path, text);
  console.log(`docs: rewrote ${file}`);
}

function main(argv: readonly string[]): number {
  if (argv.includes('--check')) {
    const problems = docsProblems();
    for (const p of problems) console.error(p);
    return problems.length === 0 ? 0 : 1;
  }
  rewrite(PAID_HANDLER_MODULES_FILE, renderPaidHandlerModules(REPO_ROOT));
  const bazaar = bazaarAcceptedRecord();
  if (!bazaar.ok) {
    console.error(`the official validators refuse the catalog's bazaar declarations; nothing recorded:\n  ${bazaar.problems.join('\n  ')}`);
    return 1;
  }
  rewrite(relative(REPO_ROOT, BAZAAR_ACCEPTED_FILE), bazaar.text);
  for (const file of docFiles(REPO_ROOT)) {
    const path = join(REPO_ROOT, file);
    const text = readFileSync(path, 'utf8');
    const next = regenerate(text);
    if (next !== text) {
      writeFileSync(path, next);
      console.log(`docs: rewrote ${file}`);
    }
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(main(process.argv.slice(2)));
