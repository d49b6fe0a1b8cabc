/**
 * The production build (`npm run build`; vitest's global setup builds it too) is what `npm start`
 * runs: plain Node on dist/server/main.js, no TypeScript loader. Started here by package.json's own
 * start command, in embedded mode, it must serve the storefront and its assets, answer a 402, take
 * a payment from the official x402 client (the receipt is signed in the pool, whose worker is a
 * bundle of its own) and publish a receipt that verifies, then shut down on SIGTERM with exit 0.
 * Anything still needing a TypeScript file at run time would fail to load here. And a stack read in
 * its own code after ready must not be source-mapped: that read would parse the bundle's map on the
 * event loop (docs/operations.md#stack-traces-and-source-maps); a preloaded probe
 * (test/fixtures/stack-probe.mjs) reads one.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isBuildFresh } from '../../scripts/build-stamp.mjs';
import { parseReceipt, verifyReceipt } from '../../src/receipt-checks/receipt-check.ts';
import { RECEIPT_HEADER } from '../../src/receipts/receipt.ts';
import { channelPayer, channelTerms } from '../helpers/channel-payer.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { killService, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer } from '../helpers/svm-payer.ts';

const BUILT_MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_OUT_DIR = join(REPO_ROOT, 'dist', 'server');
const WEB_OUT_DIR = join(REPO_ROOT, 'dist', 'web');
const STACK_PROBE = fileURLToPath(new URL('../fixtures/stack-probe.mjs', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'built-server-'));
let svc: ServiceProcess;

beforeAll(async () => {
  if (!existsSync(BUILT_MAIN)) throw new Error(`${BUILT_MAIN} is missing: run \`npm run build\` (vitest's global setup does)`);
  // A launcher finding the build stale would rebuild dist/ in place, under the other files' services.
  if (!isBuildFresh(SERVER_OUT_DIR, REPO_ROOT) || !isBuildFresh(WEB_OUT_DIR, REPO_ROOT))
    throw new Error('dist/ is not the build of the sources as they are now');
  // NODE_OPTIONS asking for source maps, as an image's environment may: the launcher still turns them off.
  const nodeOptions = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${nodeOptions ?? ''} --enable-source-maps`.trim();
  const started = spawnService(dataDir, [], 'start', ['--import', STACK_PROBE]);
  if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = nodeOptions;
  svc = await started;
}, 240_000);

afterAll(async () => {
  await killService(svc);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The embedded local EVM of the child, as the channel payer funds itself from it (its RPC's cheat method). */
async function childEvm(): Promise<{ fundUsdc(address: string, units: bigint): Promise<string>; usdcAddress: string }> {
  const health = (await (await fetch(`${svc.url}/health`)).json()) as { localnet: { evmRpcUrl: string } };
  const terms = await channelTerms(`${svc.url}/v1/epoch`);
  return {
    usdcAddress: terms.asset,
    async fundUsdc(address, units) {
      const body = { jsonrpc: '2.0', id: 1, method: 'localnet_fundStablecoin', params: [address, Number(units)] };
      const r = (await (
        await fetch(health.localnet.evmRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as { error?: unknown };
      if (r.error) throw new Error(JSON.stringify(r.error));
      return address;
    },
  };
}

describe('the built service (npm start)', () => {
  it('takes 50 calls through one payment channel with one deposit, from the official batch-settlement client', async () => {
    const payer = await channelPayer(await childEvm(), 1_000_000n, 100_000n);
    const deposits: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await payer.pay(`${svc.url}/v1/epoch`);
      expect(res.status).toBe(200);
      const settle = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      if (settle.transaction) deposits.push(settle.transaction);
      expect((settle.extra as any).channelState.chargedCumulativeAmount).toBe(String((i + 1) * 1000));
      await res.arrayBuffer();
    }
    expect(deposits).toHaveLength(1);
  }, 120_000);

  it('serves the storefront, its assets and a 402 challenge', async () => {
    const page = await fetch(`${svc.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect((await fetch(`${svc.url}${script}`)).status).toBe(200);
    const challenge = await fetch(`${svc.url}/v1/epoch`);
    expect(challenge.status).toBe(402);
    expect(challenge.headers.get('payment-required')).toBeTruthy();
  });

  it('takes a payment and publishes a receipt that verifies', async () => {
    const payer = await fundedPayer(svc.rpcUrl, 1_000_000);
    const pay = officialSvmFetch(payer, { rpcUrl: svc.rpcUrl, stablecoinMint: svc.stablecoinMint });
    const res = await pay(`${svc.url}/v1/epoch?rate=both`);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(res.status).toBe(200);
    const parsed = parseReceipt(Buffer.from(res.headers.get(RECEIPT_HEADER)!, 'base64').toString('utf8'));
    if (!parsed.ok) throw new Error(parsed.reason);
    const get = async (path: string) => {
      const r = await fetch(`${svc.url}${path}`);
      return { status: r.status, body: await r.json() };
    };
    const report = await verifyReceipt(parsed.receipt, get, { body });
    expect(report.lines.filter((l) => !l.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  }, 120_000);

  it('reads a stack through its own bundle after ready without a source map', async () => {
    svc.child.kill('SIGUSR2');
    const line = await vi.waitFor(() => {
      const found = /^stack-probe (.*)$/m.exec(svc.stderr())?.[1];
      if (found === undefined) throw new Error('no stack-probe line yet');
      return found;
    });
    const probe = JSON.parse(line) as { sourceMapsEnabled: boolean; frames: string[] };
    // The read went through the service's own code, and named the bundle's lines, not TypeScript's.
    expect(probe.frames.filter((f) => /\.ts:\d+/.test(f))).toEqual([]);
    expect(probe.frames.some((f) => f.includes('/dist/server/main.js:'))).toBe(true);
    expect(probe.sourceMapsEnabled).toBe(false);
  });

  it('stops on SIGTERM with exit 0', async () => {
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  }, 60_000);
});
