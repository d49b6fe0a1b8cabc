/**
 * The storefront in a real Chromium (Debian's /usr/bin/chromium driven by playwright-core; no
 * browser is ever downloaded) against the real service on the embedded localnet: the catalog,
 * the console's request, curl command and decoded 402 for both networks, a refused parameter, a
 * free preview then the daily limit, a payment made here with the official x402 client showing
 * up live in the ledger panel, its receipt verified in the browser (and a tampered copy
 * refused), screenshots at desktop and phone width, and the catalog with JavaScript off.
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';

/** Debian's Chromium; `.ci/run` installs it with apt when it is missing. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Where the screenshots go (gitignored). */
const OUTPUT_DIR = new URL('../../test-output/', import.meta.url);
/** Waiting on the page, under a loaded machine (an upper bound, never a timing assertion). */
const UI_TIMEOUT_MS = 30_000;
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
/** Valid base58 of an address's length, but 33 bytes once decoded: only the service can tell. */
const LONG_ADDRESS = 'z'.repeat(44);

const paid = usePaidService();
let browser: Browser;
let page: Page;
/** Console errors and CSP reports of the main page: there must be none. */
const problems: string[] = [];

beforeAll(async () => {
  // launch() runs Chromium on a fresh temporary profile, removed when it closes.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  page.on('console', (m) => {
    // The console asks for answers that are not 200 on purpose (the terms, a refused parameter, the limit).
    if (/^Failed to load resource: the server responded with a status of (400|402|429) /.test(m.text())) return;
    if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const pick = async (path: string) => {
  await page.selectOption('#endpoint-select', path);
  await expect.poll(() => page.locator('#console .endpoint-meta').textContent()).toContain(CATALOG.find((e) => e.path === path)!.summary);
};
const resultText = () => page.locator('#console-result').innerText();

describe('the storefront in Chromium', () => {
  it('shows the catalog and draws every panel, with no console error', async () => {
    await page.goto(paid.url);
    await expect.poll(() => page.locator('#catalog article.endpoint').count()).toBe(CATALOG.length);
    const smri = page.locator('#endpoint-v1-smri');
    expect(await smri.innerText()).toContain('$0.01');
    await expect.poll(() => page.locator('#ledger .feed-state').innerText()).toContain('Live');
    await expect.poll(() => page.locator('#health dl.health').innerText()).toMatch(/Geyser stream[\s\S]*Kill switch\s+off/);
    // Every form control is named by a label tied to it.
    const unlabeled = await page.$$eval('input, select, textarea', (els) => els.filter((e: any) => e.labels?.length === 0).map((e) => e.id));
    expect(unlabeled).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('builds a request: its curl command, and the decoded 402 for both networks', async () => {
    // The catalog's "Try it" link picks its endpoint in the console and moves the focus there.
    await page.locator('#endpoint-v1-epoch a.try').click();
    await expect.poll(() => page.locator('#endpoint-select').inputValue()).toBe('/v1/epoch');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('endpoint-select');
    await page.selectOption('#param-rate', 'alt');
    const url = `${paid.url}/v1/epoch?rate=alt`;
    await expect.poll(() => page.locator('#console .request-line').innerText()).toBe(url);
    expect(await page.locator('#console .commands').innerText()).toContain(`curl -sS -D - -H "PAYMENT-SIGNATURE: $PAYMENT" '${url}'`);
    await page.getByRole('button', { name: 'Show 402 terms' }).click();
    await page.locator('#console-result .terms').waitFor();
    const terms = paid.service.terms;
    const solana = await page.getByRole('article', { name: 'Pay on Solana' }).innerText();
    const base = await page.getByRole('article', { name: 'Pay on Base', exact: true }).innerText();
    const channel = await page.getByRole('article', { name: 'Pay on Base through a payment channel' }).innerText();
    expect(channel).toContain('batch-settlement');
    expect(channel).toContain(terms.evm.payTo);
    for (const [text, side] of [
      [solana, terms.svm],
      [base, terms.evm],
    ] as const) {
      expect(text).toContain('$0.001');
      expect(text).toContain('1000 atomic units');
      expect(text).toContain(side.payTo);
      expect(text).toContain(side.asset);
      expect(text).toContain('60 s');
    }
    expect(solana).toMatch(/solana:/);
    expect(base).toContain('eip155:8453');
  });

  it('names the parameter the service refuses, and why', async () => {
    await pick('/v1/smri');
    await page.fill('#param-mint', LONG_ADDRESS);
    await page.getByRole('button', { name: 'Run free preview' }).click();
    await expect.poll(resultText).toContain('Parameter "mint" is not accepted');
    expect(await resultText()).toContain('mint is not a base58 address of 32 bytes');
    expect(await page.getAttribute('#param-mint', 'aria-invalid')).toBe('true');
  });

  it('runs the free preview, then explains the daily limit and how to pay instead', async () => {
    await page.fill('#param-mint', BONK);
    await page.getByRole('button', { name: 'Run free preview' }).click();
    await expect.poll(resultText).toContain('Free preview');
    expect(await page.locator('#console-result pre.json').innerText()).toMatch(/"preview": true[\s\S]*"smri":/);
    await page.getByRole('button', { name: 'Run free preview' }).click();
    await expect.poll(resultText).toContain('Free preview used up for today');
    const text = await resultText();
    expect(text).toMatch(/Next free preview: .+ \(in .+; Retry-After: \d+ s\)/);
    expect(text).toContain(`npx x402-intel call /v1/smri --mint ${BONK} --keypair payer.json --url ${paid.url}`);
    expect(text).toContain(`npx x402-intel keygen payer.json && npx x402-intel localnet fund --keypair payer.json --url ${paid.url}`);
    // The page says the daily preview is the CLI's too.
    expect(await page.locator('#console-form').innerText()).toContain('One free preview a day per client (UTC), shared with x402-intel preview');
  });

  it('shows a payment made with the official x402 client live in the ledger panel, without reload', async () => {
    await page.evaluate(() => {
      (globalThis as any).loadedOnce = true;
    });
    const res = await paid.pay('/v1/epoch?rate=both');
    expect(res.status).toBe(200);
    const receipt = res.headers.get('x-service-receipt')!;
    const index = JSON.parse(Buffer.from(receipt, 'base64').toString()).ledgerIndex as number;
    const row = page.locator(`#ledger .entry[data-index="${index}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(new RegExp(`#${index}[\\s\\S]*payment[\\s\\S]*/v1/epoch[\\s\\S]*\\$0\\.001[\\s\\S]*Solana`));
    await expect.poll(() => page.locator('#ledger .tree-size').innerText()).toBe(String(index + 1));
    expect(await page.evaluate(() => (globalThis as any).loadedOnce)).toBe(true);

    // The receipt of that payment, verified in the browser, body hash included.
    const body = Buffer.from(await res.arrayBuffer());
    await page.fill('#receipt-input', receipt);
    await page.setInputFiles('#receipt-body', { name: 'body.json', mimeType: 'application/json', buffer: body });
    await page.getByRole('button', { name: 'Verify in this browser' }).click();
    await expect.poll(() => page.locator('#receipt-result .verdict').innerText()).toBe('Receipt: VERIFIED');
    expect(await page.locator('#receipt-result li.fail').count()).toBe(0);
    expect(await page.locator('#receipt-result li.pass').count()).toBeGreaterThan(4);

    // The same receipt with one field changed is refused.
    const tampered = JSON.parse(Buffer.from(receipt, 'base64').toString());
    tampered.priceUsdcUnits += 1;
    await page.setInputFiles('#receipt-body', []);
    await page.fill('#receipt-input', JSON.stringify(tampered));
    await page.getByRole('button', { name: 'Verify in this browser' }).click();
    await expect.poll(() => page.locator('#receipt-result .verdict').innerText()).toBe('Receipt: NOT VERIFIED');
    expect(await page.locator('#receipt-result li.fail').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('fits a phone without sideways scrolling; screenshots at both widths', async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: new URL('storefront.png', OUTPUT_DIR).pathname, fullPage: true });
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 }, isMobile: true });
    await phone.goto(paid.url);
    await phone.locator('#console .request-line').waitFor();
    const widths = await phone.evaluate(() => {
      const root = (globalThis as any).document.documentElement;
      return { scroll: root.scrollWidth as number, client: root.clientWidth as number };
    });
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await phone.screenshot({ path: new URL('storefront-phone.png', OUTPUT_DIR).pathname, fullPage: false });
    await phone.locator('#console').scrollIntoViewIfNeeded();
    await phone.screenshot({ path: new URL('storefront-phone-console.png', OUTPUT_DIR).pathname, fullPage: false });
    await phone.close();
  });

  it('shows the catalog with JavaScript off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(paid.url);
    expect(await plain.locator('#catalog article.endpoint').count()).toBe(CATALOG.length);
    expect(await plain.locator('#endpoint-v1-decision').innerText()).toContain('$0.05');
    await plain.locator('#endpoint-v1-decision summary').click();
    expect(await plain.locator('#endpoint-v1-decision dl.params').innerText()).toMatch(
      /policy\s+optional[\s\S]*one of conservative, bluechip, anti-rug, degen/,
    );
    expect(await plain.locator('#console noscript').count()).toBe(1);
    expect(await plain.locator('.js-only').first().isVisible()).toBe(false);
    await context.close();
  });
});
