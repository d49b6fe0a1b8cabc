/**
 * The disk refusing writes under a running service. The service runs as a child process (embedded
 * mode) and its file-size limit (RLIMIT_FSIZE, set from outside with util-linux `prlimit --pid`)
 * is lowered while it serves: a write that would grow a file past the limit fails with EFBIG, as
 * a full disk fails it with ENOSPC. Every durable write of a paid call goes through the data
 * directory's commit journal (docs/payments.md#durable-writes-of-a-paid-call). First every file is
 * refused; then, from the moment a call's pending record is on disk (the money then moves), the
 * ledger's WAL may not grow, so that call's one commit (replay record, ledger entry, kept 200) is
 * refused.
 * Expected: paid calls answer 503 with nothing charged, or 200 charged once; the service stays up
 * and says why in /health; once the limit is lifted paid calls recover (the refused entry is
 * appended from the ledger's backlog first); no acknowledged entry is lost and the chain verifies.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RECEIPT_HEADER } from '../../src/receipts/receipt.ts';
import { chainProblem, sha256Hex } from '../helpers/ledger-client.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { killService, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';

const PRICE = 1_000n;
const CALL = '/v1/epoch?rate=both';
// The confirmed path: the ledger's limit is set from outside once the call's pending record is on
// disk, and must land before the receipt's append. An early answer appends within milliseconds of
// that record (CI saw the receipt win the race); a confirmed one waits for the chain first.
const CONFIRMED_PATH = ['--svm-early-ceiling', '0'];

const dataDir = mkdtempSync(join(tmpdir(), 'disk-faults-'));
const walPath = join(dataDir, 'ledger', 'ledger.wal');
const pendingPath = join(dataDir, 'replay', 'pending-settlements.log');
let svc: ServiceProcess;
let payer: TestPayer;
let payFetch: typeof fetch;
/** SHA-256 of every receipt a caller received, by ledger index. */
const acknowledged = new Map<number, string>();
/** Paid calls answered 200 (with a receipt or without): each must end with one ledger entry. */
let answered = 0;

/** Lowers (or lifts) the running service's file-size limit: the soft limit only. */
const limitFileSize = (bytes: number | 'unlimited'): void => void execFileSync('prlimit', ['--pid', String(svc.pid), `--fsize=${bytes}:`]);

beforeAll(async () => {
  svc = await spawnService(dataDir, CONFIRMED_PATH);
  payer = await fundedPayer(svc.rpcUrl, 2_000_000);
  payFetch = officialSvmFetch(payer, { rpcUrl: svc.rpcUrl, stablecoinMint: svc.stablecoinMint });
}, 240_000);

afterAll(async () => {
  await killService(svc);
  rmSync(dataDir, { recursive: true, force: true });
});

const balance = () => tokenBalance(svc.rpcUrl, payer.signer.address, svc.stablecoinMint);
const health = async () => readJson(fetch(`${svc.url}/health`));

/** One paid call: returns its status and whether it carried a receipt, and checks the charge. */
async function paidCall(): Promise<{ status: number; body: any; receipt: boolean }> {
  const before = await balance();
  const res = await payFetch(`${svc.url}${CALL}`);
  const body = await readJson(res);
  const header = res.headers.get(RECEIPT_HEADER);
  if (header) {
    const { signature: _signature, ...unsigned } = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    acknowledged.set(unsigned.ledgerIndex, sha256Hex(JSON.stringify(unsigned)));
  }
  // Charged exactly for a 200, and nothing for anything else.
  expect(await balance()).toBe(res.status === 200 ? before - PRICE : before);
  if (res.status === 200) answered++;
  return { status: res.status, body, receipt: header !== null };
}

describe('every file refused', () => {
  it('paid calls answer 503 and charge nothing; free reads go on; lifting the limit recovers', async () => {
    expect(await paidCall()).toMatchObject({ status: 200, receipt: true });
    limitFileSize(0);
    try {
      for (let i = 0; i < 3; i++) {
        const call = await paidCall();
        expect(call.status, JSON.stringify(call.body)).toBe(503);
        expect(call.body.error).toBe('storage_unavailable');
      }
      expect((await fetch(`${svc.url}/ledger?limit=5`)).status).toBe(200);
      expect((await fetch(`${svc.url}/health`)).status).toBe(200);
    } finally {
      limitFileSize('unlimited');
    }
    expect(await paidCall()).toMatchObject({ status: 200, receipt: true });
  }, 120_000);
});

describe('the journal refused after the money moved', () => {
  it('the call that meets it is answered and charged once; paid calls stop until its entry is appended, then go on', async () => {
    expect(await paidCall()).toMatchObject({ status: 200, receipt: true });
    // The limit comes once the call's pending record is on disk (before its broadcast), at the
    // ledger WAL's size: the commit of its replay record, ledger entry and kept 200 is refused,
    // by the journal's write or, the journal being preallocated, by the WAL's growth after it
    // (the batch is then taken back: the files cut, the journal's record zeroed).
    const pendingBefore = statSync(pendingPath).size;
    const call = paidCall();
    await vi.waitUntil(() => statSync(pendingPath).size > pendingBefore, { timeout: 30_000, interval: 2 });
    limitFileSize(statSync(walPath).size);
    try {
      // The money moved before the commit was refused: the answer is not withheld, it has no receipt.
      expect(await call).toMatchObject({ status: 200, receipt: false });
      // Its entry waits in the backlog: no new payment is taken until the ledger has it.
      const next = await paidCall();
      expect(next.status).toBe(503);
      expect(next.body.error).toBe('service_stopped');
    } finally {
      limitFileSize('unlimited');
    }
    // Nothing acknowledged was lost, so nothing waits for a restart: the backlog's entry goes in, paid calls go on.
    await vi.waitUntil(async () => (await health()).ledger.writable === true && (await paidCall()).status === 200, { timeout: 30_000, interval: 500 });
  }, 120_000);

  it('a restart recovers: every acknowledged entry is there, the chain verifies, paid calls answer', async () => {
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
    svc = await spawnService(dataDir, CONFIRMED_PATH);
    payer = await fundedPayer(svc.rpcUrl, 2_000_000);
    payFetch = officialSvmFetch(payer, { rpcUrl: svc.rpcUrl, stablecoinMint: svc.stablecoinMint });
    const log = await readJson(fetch(`${svc.url}/ledger?limit=1000`));
    expect(chainProblem(log.entries)).toBeNull();
    for (const [index, receiptSha256] of acknowledged) expect(log.entries.find((e: { index: number }) => e.index === index)?.receiptSha256).toBe(receiptSha256);
    // The answer that left without a receipt had its entry recorded aside: it is appended now, before new payments.
    const payments = async () => (await readJson(fetch(`${svc.url}/ledger?limit=1000`))).entries.filter((e: { kind: string }) => e.kind === 'payment').length;
    await vi.waitUntil(async () => (await payments()) === answered, { timeout: 30_000, interval: 100 });
    expect(await paidCall()).toMatchObject({ status: 200, receipt: true });
    expect(await payments()).toBe(answered);
  }, 240_000);
});
