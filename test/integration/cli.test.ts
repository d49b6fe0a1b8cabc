/**
 * The x402-intel CLI as a user runs it (a child process, its own HOME and working directory)
 * against the real service on the embedded localnet: fund fresh Solana and EVM wallets, pay
 * /v1/epoch on each network, find the answer, the receipt and the exact body on disk, verify them
 * (and see a tampered copy fail), verify a proof, and get the documented exit status for a price
 * above the cap (nothing paid, nothing logged), a loose key file, an unknown path and an
 * unreachable service; and the free daily preview, then its limit (exit 4). One run per exit
 * status (0 to 6) is a child process; the others run the same CLI in this process, in the same
 * directories (cliHere).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, generateKeyPairSync, sign as edSign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { runCliIn } from '../helpers/cli-in-process.ts';
import { runCliProcess, writeEvmKey, writeSolanaKeypair } from '../helpers/cli-process.ts';
import { SOLANA } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { tokenBalance } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PAID_TEST_MS = 240_000;
/** The preview quota's clock, pinned (noon UTC: the next preview is 12 hours away). */
const PREVIEW_NOW = new Date('2026-11-24T12:00:00Z');
let t: TestService;
let work: string;
let home: string;
let solanaAddress: string;
let evmAddress: string;
/** The receipt file of the Solana call, for the verification tests. */
let solanaReceipt: { file: string; bodyFile: string; ledgerIndex: number } | undefined;

const cli = (args: readonly string[]) => runCliProcess([...args, '--url', t.url], { cwd: work, home });
/**
 * The same CLI in this process, same working directory and home (work/home), for every run but one
 * per exit status: a child process per run (about 0.65 s of CPU to start) adds only the launcher
 * and the exit-status mapping, which the runs as child processes cover (exit 0 to 6, one each).
 */
const cliHere = (args: readonly string[]) => runCliIn(work, [...args, '--url', t.url]);
const ledgerSize = async (): Promise<number> => (await readJson(fetch(`${t.url}/ledger?limit=1`))).treeSize;
const solanaBalance = () => tokenBalance(t.localnet!.urls.rpc, solanaAddress, t.localnet!.stablecoinMint);

beforeAll(async () => {
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({ now: () => PREVIEW_NOW }, [], { txsPerSlot: 0 });
  work = mkdtempSync(join(tmpdir(), 'x402-intel-cli-'));
  home = join(work, 'home');
  mkdirSync(join(home, '.config', 'solana'), { recursive: true, mode: 0o700 });
  // The default keypair path of the Solana CLI: `call` without --keypair must find it.
  solanaAddress = writeSolanaKeypair(join(home, '.config', 'solana', 'id.json'));
  evmAddress = writeEvmKey(join(work, 'base.key'));
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('x402-intel localnet fund', () => {
  it(
    'funds a fresh Solana address and, by its key file, a fresh EVM wallet from the localnet faucets',
    async () => {
      const solana = await cliHere(['localnet', 'fund', solanaAddress, '--usdc', '2', '--json']);
      expect(solana.code).toBe(0);
      expect(JSON.parse(solana.stdout)).toMatchObject({ address: solanaAddress, network: 'solana', lamports: '1000000000', stablecoinUnits: '2000000' });
      expect(await solanaBalance()).toBe(2_000_000n);

      // By key file: the CLI reads the address from it (under the same 0600 rule as paying).
      const evm = await cliHere(['localnet', 'fund', '--evm-key', 'base.key', '--usdc', '1.5']);
      expect(evm.code).toBe(0);
      expect(evm.stdout).toContain(`funded ${evmAddress} on the localnet's base: 1.5 USDC`);
      const reader = createEvmTokenReader({ rpcUrl: t.localnet!.evm.url, asset: t.localnet!.evm.usdcAddress });
      const state = await reader.payerState(evmAddress, `0x${'00'.repeat(32)}`);
      expect(state.ok && state.balance).toBe(1_500_000n);
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel call', () => {
  it(
    'pays /v1/epoch on Solana with the default keypair: answer on stdout, receipt and exact body saved',
    async () => {
      const before = await solanaBalance();
      // Through the launcher users run (bin/x402-intel.mjs and its TypeScript loader); the other runs use the same CLI bundled.
      const run = await runCliProcess(['call', '/v1/epoch', '--rate', 'both', '--json', '--url', t.url], { cwd: work, home, launcher: true });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(doc).toMatchObject({ endpoint: '/v1/epoch', resource: '/v1/epoch?rate=both', listPrice: '$0.001' });
      expect(doc.answer).toMatchObject({ epoch: expect.any(Number), slotsInEpoch: expect.any(Number) });
      expect(doc.settlement).toMatchObject({ success: true, network: SOLANA, payer: solanaAddress });
      expect(doc.receipt.file).toBe(join(work, 'x402-receipts', basename(doc.receipt.file)));
      expect(basename(doc.receipt.file)).toMatch(/^\d{6}-v1-epoch\.receipt\.json$/);
      const receipt = JSON.parse(readFileSync(doc.receipt.file, 'utf8'));
      const body = readFileSync(doc.receipt.bodyFile);
      expect(receipt).toMatchObject({ endpoint: '/v1/epoch', resource: '/v1/epoch?rate=both', network: SOLANA, ledgerIndex: doc.receipt.ledgerIndex });
      expect(createHash('sha256').update(body).digest('hex')).toBe(receipt.responseSha256);
      expect(JSON.parse(body.toString())).toEqual(doc.answer);
      expect(before - (await solanaBalance())).toBe(1000n);
      // The x402 offer-receipt receipt is shown and saved beside ours.
      expect(doc.x402Receipt.file).toBe(doc.receipt.file.replace(/\.receipt\.json$/, '.x402-receipt.json'));
      expect(doc.x402Receipt.payload).toMatchObject({ version: 1, resourceUrl: `${t.url}/v1/epoch`, payer: solanaAddress, network: SOLANA });
      expect(JSON.parse(readFileSync(doc.x402Receipt.file, 'utf8'))).toEqual(doc.x402Receipt.signed);
      solanaReceipt = { file: doc.receipt.file, bodyFile: doc.receipt.bodyFile, ledgerIndex: doc.receipt.ledgerIndex };
    },
    PAID_TEST_MS,
  );

  it(
    'pays /v1/epoch on Base with an EVM key file',
    async () => {
      const run = await cliHere(['call', 'epoch', '--network', 'base', '--evm-key', 'base.key', '--receipt-dir', 'base-receipts', '--json']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(doc.settlement).toMatchObject({ success: true, network: 'eip155:8453', payer: evmAddress });
      expect(doc.settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(doc.receipt.file.startsWith(join(work, 'base-receipts'))).toBe(true);
      expect(JSON.parse(readFileSync(doc.receipt.file, 'utf8')).network).toBe('eip155:8453');
    },
    PAID_TEST_MS,
  );

  it(
    'refuses a price above --max-price with exit 3: nothing signed, nothing paid, nothing logged',
    async () => {
      const balance = await solanaBalance();
      const size = await ledgerSize();
      const run = await cli(['call', '/v1/epoch', '--max-price', '0.0001']);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('refused to pay: /v1/epoch asks 0.001 USDC (1000 units)');
      expect(run.stderr).toContain('above --max-price 0.0001; nothing was signed');
      const json = await cliHere(['call', '/v1/epoch', '--max-price', '0.0009', '--json']);
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toMatchObject({ error: 'price_above_max', amountUnits: '1000', maxUnits: '900', network: SOLANA });
      expect(await solanaBalance()).toBe(balance);
      expect(await ledgerSize()).toBe(size);
    },
    PAID_TEST_MS,
  );

  it(
    'refuses a keypair file readable by others (exit 6), an unknown path (exit 2), an unreachable service (exit 5)',
    async () => {
      writeSolanaKeypair(join(work, 'loose.json'), 0o644);
      const loose = await cli(['call', '/v1/epoch', '--keypair', 'loose.json']);
      expect(loose.code).toBe(6);
      expect(loose.stderr).toContain('readable by group or others (mode 644; 0600 required): chmod 600 it');

      const unknown = await cli(['call', '/v1/no-such-thing']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown endpoint "/v1/no-such-thing"');

      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const unreachable = await runCliProcess(['call', '/v1/epoch', '--url', `http://127.0.0.1:${port}`, '--json'], { cwd: work, home });
      expect(unreachable.code).toBe(5);
      expect(JSON.parse(unreachable.stdout)).toMatchObject({ error: 'unreachable', message: expect.stringContaining(`127.0.0.1:${port}`) });
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel call: the service says no', () => {
  it(
    "prints the service's HTTP status, code and reason without --json: a payer with no money (402), an account that is not a mint (404)",
    async () => {
      writeSolanaKeypair(join(work, 'unfunded.json'));
      const size = await ledgerSize();
      const refused = await cli(['call', '/v1/epoch', '--keypair', 'unfunded.json']);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/x402-intel: \/v1\/epoch answered HTTP 402 [a-z][a-z0-9_]+: \S/);
      expect(refused.stderr).toContain('x402-intel localnet fund --keypair unfunded.json');

      const notFound = await cliHere(['call', '/v1/smri', '--mint', '11111111111111111111111111111112']);
      expect(notFound.code).toBe(1);
      expect(notFound.stderr).toContain('x402-intel: /v1/smri answered HTTP 404 not_found: ');
      expect(await ledgerSize()).toBe(size);
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel verify-receipt and verify-proof', () => {
  it(
    'verifies the saved receipt with its body found next to it (exit 0)',
    async () => {
      expect(solanaReceipt).toBeDefined();
      const run = await cliHere(['verify-receipt', solanaReceipt!.file]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).not.toContain('FAIL');
      expect(run.stdout).toContain('PASS  sha256(body) equals responseSha256');
      expect(run.stdout).toContain('PASS  entry.receiptSha256 equals sha256(canonicalReceipt)');
      expect(run.stdout).toContain('PASS  x402 receipt signer');
      expect(run.stdout).toContain('PASS  x402 receipt signature');
      expect(run.stdout).toContain('VERIFIED');
    },
    PAID_TEST_MS,
  );

  it(
    'fails an x402 receipt whose payload was changed, or signed by another key under our key id (exit 1)',
    async () => {
      const signed = JSON.parse(readFileSync(solanaReceipt!.file.replace(/\.receipt\.json$/, '.x402-receipt.json'), 'utf8'));
      const [header, payload] = signed.signature.split('.');
      const changed = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const otherPayer = Buffer.from(JSON.stringify({ ...changed, payer: evmAddress })).toString('base64url');
      const stranger = generateKeyPairSync('ed25519').privateKey;
      const strangerSig = edSign(null, Buffer.from(`${header}.${payload}`), stranger).toString('base64url');
      for (const [name, signature] of [
        ['changed', `${header}.${otherPayer}.${signed.signature.split('.')[2]}`],
        ['stranger', `${header}.${payload}.${strangerSig}`],
      ]) {
        const dir = join(work, `x402-${name}`);
        mkdirSync(dir);
        copyFileSync(solanaReceipt!.file, join(dir, 'r.receipt.json'));
        copyFileSync(solanaReceipt!.bodyFile, join(dir, 'r.body.json'));
        writeFileSync(join(dir, 'r.x402-receipt.json'), JSON.stringify({ ...signed, signature }));
        const run = await cliHere(['verify-receipt', join(dir, 'r.receipt.json'), '--json']);
        expect(run.code, run.stdout + run.stderr).toBe(1);
        const report = JSON.parse(run.stdout);
        expect(report.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { name: string }) => c.name)).toEqual(['x402 receipt signature']);
      }
    },
    PAID_TEST_MS,
  );

  it(
    'fails a tampered receipt and a tampered body (exit 1)',
    async () => {
      const dir = join(work, 'tampered');
      mkdirSync(dir);
      const receipt = JSON.parse(readFileSync(solanaReceipt!.file, 'utf8'));
      writeFileSync(join(dir, 'r.receipt.json'), JSON.stringify({ ...receipt, priceUsdcUnits: receipt.priceUsdcUnits + 1 }));
      copyFileSync(solanaReceipt!.bodyFile, join(dir, 'r.body.json'));
      const forged = await cliHere(['verify-receipt', join(dir, 'r.receipt.json'), '--json']);
      expect(forged.code).toBe(1);
      const report = JSON.parse(forged.stdout);
      expect(report.ok).toBe(false);
      expect(report.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { name: string }) => c.name)).toEqual([
        'ed25519 signature over utf8(canonicalReceipt) by signedBy',
        'entry.receiptSha256 equals sha256(canonicalReceipt)',
      ]);

      const body = readFileSync(solanaReceipt!.bodyFile);
      body[body.length - 2] = body[body.length - 2]! ^ 1;
      writeFileSync(join(dir, 'flipped.body'), body);
      const badBody = await cliHere(['verify-receipt', solanaReceipt!.file, '--body', join(dir, 'flipped.body')]);
      expect(badBody.code).toBe(1);
      expect(badBody.stdout).toContain('FAIL  sha256(body) equals responseSha256');
      expect(badBody.stdout).toContain('NOT VERIFIED');
    },
    PAID_TEST_MS,
  );

  it(
    'verifies the inclusion proof of the ledger entry (exit 0), and refuses an index past the tree (exit 1)',
    async () => {
      const run = await cliHere(['verify-proof', String(solanaReceipt!.ledgerIndex), '--json']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, index: solanaReceipt!.ledgerIndex });
      const past = await cliHere(['verify-proof', '999999']);
      expect(past.code).toBe(1);
      expect(past.stdout).toContain('FAIL  the entry is inside the signed tree');
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel localnet fund refuses a service without a localnet', () => {
  it(
    'exits 1 naming the missing localnet when /health has none (a mainnet-mode service)',
    async () => {
      const mainnetLike = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', mode: 'mainnet' }));
      });
      await new Promise<void>((resolve) => mainnetLike.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(mainnetLike.address() as AddressInfo).port}`;
        const run = await runCliIn(work, ['localnet', 'fund', solanaAddress, '--url', url]);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain('reports no embedded localnet in /health');
      } finally {
        mainnetLike.closeAllConnections();
        await new Promise<void>((resolve) => mainnetLike.close(() => resolve()));
      }
    },
    PAID_TEST_MS,
  );
});

describe('x402-intel preview', () => {
  it(
    'prints the free preview once, then says when the next comes and how to pay instead (exit 4)',
    async () => {
      const size = await ledgerSize();
      const first = await cliHere(['preview', '/v1/epoch', '--rate', 'alt']);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const answer = JSON.parse(first.stdout);
      expect(answer).toMatchObject({ preview: true, epoch: expect.any(Number) });
      expect(answer.previewTruncated).toEqual({ slotRates: { withheld: true } });

      const second = await cli(['preview', '/v1/epoch', '--rate', 'alt']);
      expect(second.code).toBe(4);
      expect(second.stdout).toBe('');
      expect(second.stderr).toContain('Next free preview at 2026-11-25T00:00:00Z (in 12h 0m). To pay for this call now: x402-intel call /v1/epoch --rate alt');
      // The same refusal as data, and a bad parameter: the CLI's own logic, run here.
      const json = await cliHere(['preview', 'epoch', '--json']);
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stdout)).toMatchObject({
        error: 'preview_limit_reached',
        status: 429,
        retryAfterSeconds: 43_200,
        nextPreviewAt: '2026-11-25T00:00:00Z',
        pay: 'x402-intel call /v1/epoch',
      });
      // A bad parameter never reaches the service (exit 2); a preview is free: nothing was logged.
      expect((await cliHere(['preview', '/v1/epoch', '--rate', 'fast'])).code).toBe(2);
      expect(await ledgerSize()).toBe(size);
    },
    PAID_TEST_MS,
  );
});
