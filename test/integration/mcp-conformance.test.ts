/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the running
 * service's /mcp, offline: every scenario talks only to this server. The suite needs Node 22 (it
 * imports `fs.globSync`; on Node 20 it does not load), so the test fetches that Node through npm
 * (`npm exec --package=node@22...`, kept in npm's cache after the first run) instead of every
 * install carrying its 185 MB binary; without the registry the test fails, it is never skipped.
 * It runs the scenarios the 2025-11-25 and 2026-07-28 revisions require, each on its own wire,
 * plus the 2026-07-28 HTTP header validation (pending in the suite, and passed here). Checks that
 * do not apply to this server are listed, each with its reason, in
 * test/fixtures/mcp-conformance-baseline.yml; any other failing check, and any baselined check
 * that starts passing, fails the suite's run and this test. The same server answers the curl call
 * docs/mcp.md shows, read from the page, with the answer the page pastes.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The Node the suite runs on: the `node` package of npm, exactly this version. */
const NODE_22_PACKAGE = 'node@22.23.3';
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(ROOT, 'test/fixtures/mcp-conformance-baseline.yml');
/** A requirement set is some 40 scenarios of a few requests each; the machine may be loaded. */
const RUN_TIMEOUT_MS = 300_000;
/** The first run downloads the Node 22 package (some 30 MB) into npm's cache; later runs find it there. */
const FETCH_NODE_TIMEOUT_MS = 300_000;

let t: TestService;
let outDir: string;
let node22: string;

/** The path of the Node 22 binary, through npm exec (which installs the package into its cache on first use). */
function fetchNode22(): Promise<string> {
  const args = ['exec', '--yes', `--package=${NODE_22_PACKAGE}`, '--', 'node', '-p', 'process.version + " " + process.execPath'];
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd: ROOT, timeout: FETCH_NODE_TIMEOUT_MS }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      const [version, path] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
      if (err || !version.startsWith('v22.') || !path)
        reject(new Error(`npm exec --package=${NODE_22_PACKAGE} gave no Node 22: ${err?.message ?? ''} ${stdout} ${stderr}`));
      else resolve(path);
    });
  });
}

beforeAll(async () => {
  [node22, t] = await Promise.all([fetchNode22(), startTestService()]);
  outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
}, FETCH_NODE_TIMEOUT_MS + 120_000);
afterAll(async () => {
  await t?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Runs the suite against the service (asynchronously: the server lives in this process). */
function conformance(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [CLI, 'server', '--url', `${t.url}/mcp`, ...args, '--expected-failures', BASELINE, '-o', outDir], {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A scenario that ran and passed every check, in a run's summary. */
const passed = (scenario: string) => new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`);

describe('MCP conformance suite', () => {
  it.each([
    ['the 2025-11-25 requirements', ['--requirements', '2025-11-25'], ['server-initialize', 'tools-list', 'ping', 'dns-rebinding-protection'].map(passed)],
    [
      'the 2026-07-28 requirements',
      ['--requirements', '2026-07-28'],
      ['tools-list', 'dns-rebinding-protection', 'input-required-result-validate-input'].map(passed),
    ],
    // One scenario prints its checks and a count instead of a summary.
    ['2026-07-28 HTTP header validation', ['--scenario', 'http-header-validation', '--spec-version', '2026-07-28'], [/Passed: (\d+)\/\1, 0 failed/]],
  ])(
    'passes %s, but for the baselined checks',
    async (_name, args, expected) => {
      const { code, output } = await conformance(args);
      const summary = output.slice(Math.max(0, output.lastIndexOf('=== SUMMARY ===')));
      expect(code, summary).toBe(0);
      expect(summary).toContain('Baseline check passed');
      for (const pattern of expected) expect(summary).toMatch(pattern);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('the curl call of docs/mcp.md', () => {
  const page = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8');
  const command = /```sh\n(curl -s http:\/\/127\.0\.0\.1:8402\/mcp [\s\S]*?)```/.exec(page)?.[1] ?? '';
  const headers = Object.fromEntries([...command.matchAll(/-H '([^:']+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
  const body = /-d '([^']*)'/.exec(command)?.[1] ?? '';

  it('answers one server-sent event carrying the JSON-RPC result, as the page shows', async () => {
    expect(headers).toEqual({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' });
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    const shown = /```\n(event: message\ndata: .*)\n```/.exec(page)?.[1] ?? '';
    expect(text.split('\n')[0]).toBe(shown.split('\n')[0]);
    const answer = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
    const documented = JSON.parse(/^data: (.*)$/m.exec(shown)?.[1] ?? 'null');
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: JSON.parse(body).id,
      result: { structuredContent: { schema: documented.result.structuredContent.schema } },
    });
    expect(Object.keys(answer.result.structuredContent).sort()).toEqual(Object.keys(documented.result.structuredContent).sort());
  });

  it('answers 406 with the body the page shows when Accept does not name both types', async () => {
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(res.status).toBe(406);
    expect(page).toContain(`\n${await res.text()}\n`);
  });
});
