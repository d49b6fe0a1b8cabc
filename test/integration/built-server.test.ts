/**
 * The production build (`npm run build`, run by pretest) is what `npm start` runs: plain Node on
 * dist/server/main.js, no TypeScript loader. Started the same way here, in embedded mode, it must
 * serve the storefront and its assets, answer a 402, take a payment from the official x402 client
 * (the receipt is signed in the pool, whose worker is a bundle of its own) and publish a receipt
 * that verifies, then shut down on SIGTERM with exit 0. Anything still needing a TypeScript file at
 * run time would fail to load here.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReceipt, verifyReceipt } from '../../src/client/receipt-check.ts';
import { RECEIPT_HEADER } from '../../src/trust/receipt.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { killService, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer } from '../helpers/svm-payer.ts';

const BUILT_MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'built-server-'));
let svc: ServiceProcess;

beforeAll(async () => {
  if (!existsSync(BUILT_MAIN)) throw new Error(`${BUILT_MAIN} is missing: run \`npm run build\` (npm test's pretest does)`);
  svc = await spawnService(dataDir, [], 'built');
}, 240_000);

afterAll(async () => {
  await killService(svc);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the built service (npm start)', () => {
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

  it('stops on SIGTERM with exit 0', async () => {
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  }, 60_000);
});
