/**
 * Adding a paid endpoint is two files and `npm run docs` (docs/development.md, "Adding a paid
 * endpoint"), tried on a temporary copy of the repository as a newcomer would: the catalog entry
 * (with its response schema and preview rule) and a handler module are written, the generator
 * and `tsc` run, and the started service sells the new path (402 terms, discovery, its free
 * preview, its MCP tool). The same entry without its handler fails `tsc` with the path named, and
 * the service built without the type checker (esbuild, as `npm start` runs it) refuses to start,
 * saying which path. `tsc` runs in-process (test/helpers/type-check.ts) over the files the
 * newcomer's change meets and all they reach; the second check reuses the first one's parse and
 * checks the handler map's file, where the error lands.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAID_HANDLER_MODULES_FILE as MODULES_FILE, renderPaidHandlerModules } from '../../scripts/paid-handler-modules.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { killService, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { createTypeChecker, type TypeChecker } from '../helpers/type-check.ts';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsc over the handler map and what it reaches takes a minute on a busy 2-core machine, the service's start as long. */
const STEP_TIMEOUT_MS = 400_000;

/** The catalog entry a newcomer writes, at the end of the catalog's list. */
const ENTRY = `  endpoint({
    path: '/v1/slot', priceUnits: 1_000, category: 'timing', tags: ['slot', 'epoch'],
    summary: 'Current slot and epoch',
    description: 'The current absolute slot and epoch of the chain, as the RPC reports them.',
    query: p.Type.Object({}), example: {},
    response: p.Type.Object({ slot: p.Type.Integer(), epoch: p.Type.Integer() }), preview: { cut: {}, withhold: ['epoch'] },
  }),
`;

/** The handler module a newcomer writes. */
const HANDLER = `import { definePaidHandler } from '../handler-group.ts';

/** \`/v1/slot\`: the chain's current slot and epoch, read from the RPC. */
export const slotHandler = definePaidHandler('/v1/slot', (deps) => async (_query, signal) => {
  const info = await deps.rpc.getEpochInfo(signal);
  return { slot: info.absoluteSlot, epoch: info.epoch };
});
`;
const HANDLER_FILE = 'src/intel/timing/slot.ts';
/**
 * What the first check covers: the two files, the generated list and the handler map they meet in,
 * with all the types these reach; the whole tree is `npm test`'s own check.
 */
const CHECKED_FILES = ['src/catalog/endpoints.ts', HANDLER_FILE, MODULES_FILE, 'src/service/handler-groups.ts'];

/** A copy of what the service, its scripts and its docs are made of, sharing node_modules, the localnet package and the built page. */
function copyRepository(): string {
  const root = mkdtempSync(join(tmpdir(), 'add-endpoint-'));
  for (const part of ['src', 'workers', 'scripts', 'docs', 'web', 'README.md', 'package.json'])
    cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
  mkdirSync(join(root, 'test/helpers'), { recursive: true });
  // The docs generator reads the layer map the import test enforces.
  for (const file of ['layer-map.ts', 'import-layers.ts']) cpSync(join(REPO_ROOT, 'test/helpers', file), join(root, 'test/helpers', file));
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(root, 'node_modules'));
  // The workspace's localnet: the server's build bundles its process (scripts/build-server.ts).
  symlinkSync(join(REPO_ROOT, 'packages'), join(root, 'packages'));
  // The built page is shared; the server is built in the copy, from the copy's sources (buildServer).
  mkdirSync(join(root, 'dist'));
  symlinkSync(join(REPO_ROOT, 'dist/web'), join(root, 'dist/web'));
  const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.json'), 'utf8'));
  // The service's handler map and all it reaches (the catalog, every handler group, the generated list of
  // handler modules and so the new handler): where a path and its handler meet. The whole tree costs
  // three times as long and adds nothing the two files can break.
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['src/service/handler-groups.ts'] }));
  return root;
}

/** Writes the catalog entry into the copy's catalog, after the last entry. */
function addEntry(root: string): void {
  const file = join(root, 'src/catalog/endpoints.ts');
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('\n];\n', text.indexOf('const ENTRIES = ['));
  expect(end).toBeGreaterThan(0);
  writeFileSync(file, `${text.slice(0, end + 1)}${ENTRY}${text.slice(end + 1)}`);
}

async function docs(root: string): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'scripts/generate-docs.ts'], { cwd: root });
}

/** `npm run build:server` in the copy: what `npm start` runs, built from the copy's sources. */
async function buildServer(root: string): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts'], { cwd: root });
}

let root: string;
let types: TypeChecker;
let service: ServiceProcess | null = null;
const bazaarBefore = readFileSync(join(REPO_ROOT, 'src/service/bazaar-accepted.ts'), 'utf8');

beforeAll(() => {
  root = copyRepository();
  types = createTypeChecker(root);
});
afterAll(async () => {
  await killService(service);
  rmSync(root, { recursive: true, force: true });
});

describe('a paid endpoint in two files', () => {
  it(
    'the entry and its handler module, then npm run docs: it type-checks and the generated files name it',
    async () => {
      addEntry(root);
      writeFileSync(join(root, HANDLER_FILE), HANDLER);
      await docs(root);
      expect(readFileSync(join(root, MODULES_FILE), 'utf8')).toContain("import { slotHandler } from './timing/slot.ts';");
      // The bazaar declarations now hold one more route: the validators judged it and the digest moved.
      expect(readFileSync(join(root, 'src/service/bazaar-accepted.ts'), 'utf8')).not.toBe(bazaarBefore);
      expect(readFileSync(join(root, 'docs/endpoints.md'), 'utf8')).toContain('`/v1/slot`');
      expect(types.check(CHECKED_FILES)).toEqual({ ok: true, output: '' });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the started service sells it: 402 terms, discovery, its free preview and its MCP tool',
    async () => {
      // As `npm start` runs it, from its build: a start through the TypeScript loader (`npm run dev`)
      // cost about twice the CPU (that start is abort-and-shutdown.test.ts's).
      await buildServer(root);
      service = await spawnService(join(root, 'data'), [], 'built', [], root);
      const challenge = await fetch(`${service.url}/v1/slot`);
      expect(challenge.status).toBe(402);
      expect(challenge.headers.get('payment-required')).toBeTruthy();
      const discovery = await readJson(fetch(`${service.url}/.well-known/x402`));
      expect(discovery.items.map((i: { resource: string }) => new URL(i.resource).pathname)).toContain('/v1/slot');
      // The preview runs the handler itself: the answer is the chain's, cut by the entry's rule.
      const preview = await readJson(fetch(`${service.url}/preview/v1/slot`));
      expect(preview.slot).toBeGreaterThan(0);
      expect(preview.epoch).toBeUndefined();
      expect(preview.preview).toBe(true);
      const client = await mcpClient(service.url);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('slot');
      } finally {
        await client.close();
      }
      await killService(service);
      service = null;
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the entry without its handler: tsc names the path, and the build, made without the type checker, refuses to start',
    async () => {
      unlinkSync(join(root, HANDLER_FILE));
      // The part of `npm run docs` that the removal changes, in-process: the generator of the list of
      // handler modules (the rest, the entry's tables and digest, is as the first run left it).
      writeFileSync(join(root, MODULES_FILE), renderPaidHandlerModules(root));
      expect(readFileSync(join(root, MODULES_FILE), 'utf8')).not.toContain('slotHandler');
      const checked = types.check(['src/service/handler-groups.ts']);
      expect(checked.ok).toBe(false);
      expect(checked.output).toContain('src/service/handler-groups.ts');
      expect(checked.output).toMatch(/"\/v1\/slot"[^\n]*is missing|is missing[^\n]*"\/v1\/slot"/);
      // Mainnet mode at addresses nothing answers: the refusal comes before any upstream is asked.
      await buildServer(root);
      const dead = 'http://127.0.0.1:9';
      const started = spawnService(
        join(root, 'data-refused'),
        [
          '--rpc-url',
          dead,
          '--geyser-url',
          dead,
          '--facilitator-url',
          dead,
          '--svm-pay-to',
          'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe',
          '--evm-pay-to',
          `0x${'1'.repeat(40)}`,
        ],
        'built',
        [],
        root,
      );
      await expect(started).rejects.toThrow(/exited before listening \(code 1[\s\S]*the paid handlers do not match the catalog: \/v1\/slot has no handler/);
    },
    STEP_TIMEOUT_MS,
  );
});
