/**
 * Pending Solana settlements and durable payment-identifier answers against the real service and
 * localnet. The settle time-out is set to 1 ms (`--settle-timeout-ms 1`, the test seam), so every
 * settlement is sent but reported `settlement_pending`; a retry of the same payment then gets the
 * stored 200 exactly once after it landed, also across a restart. A transaction lost on its way
 * to the node (an RPC proxy that answers sendTransaction without forwarding it, as a node that
 * drops it would) is released once its blockhash expired: nothing charged, no duplicate refusal.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import { loadConfig } from '../../src/config.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService, type Upstreams } from '../../src/service/service.ts';
import { RECEIPT_HEADER } from '../../src/receipts/receipt.ts';
import { readJson } from '../helpers/read-json.ts';
import { SOLANA, officialSvmClient } from '../helpers/official-svm-client.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const EPOCH_PRICE = 1000n;
/** Past the localnet's 150-block blockhash lifetime. */
const BLOCKS_TO_EXPIRE = 160;
let localnet: Localnet;
let upstreams: Upstreams;
let payer: TestPayer;
let proxy: { url: string; dropSends: boolean; dropped: number; server: Server; onSend: ((signature: string) => void) | null };
const dirs: string[] = [];

/** A JSON-RPC proxy to the localnet that, while `dropSends`, answers sendTransaction with the signature but never forwards it. */
async function startLossyProxy(target: string): Promise<typeof proxy> {
  const state = { url: '', dropSends: false, dropped: 0, server: null as unknown as Server, onSend: null as ((signature: string) => void) | null };
  state.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { id: unknown; method: string; params: [string] };
      const signature = parsed.method === 'sendTransaction' ? encodeBase58(Uint8Array.from(Buffer.from(parsed.params[0], 'base64').subarray(1, 65))) : '';
      if (signature) state.onSend?.(signature);
      if (state.dropSends && signature) {
        state.dropped++;
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, result: signature }));
      }
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    });
  });
  await new Promise<void>((r) => state.server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

async function start(dataDir: string, settleTimeoutMs: number): Promise<RunningService> {
  // The confirmed path (dearer routes, payers past their cap): no early answer for the $0.001 route tested here.
  const early = ['--svm-early-ceiling', '0'];
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--settle-timeout-ms', String(settleTimeoutMs), ...early]);
  return startService(config, { upstreams: { ...upstreams, rpcUrl: proxy.url } });
}

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'x402-pending-'));
  dirs.push(dir);
  return dir;
}

/** A payment header made by the official client for `url`, not yet sent. */
async function officialPaymentHeader(url: string, paymentId?: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(402);
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  if (paymentId)
    required.extensions = {
      ...required.extensions,
      'payment-identifier': { ...(required.extensions?.['payment-identifier'] as object), info: { required: false, id: paymentId } },
    };
  const client = officialSvmClient(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
  return Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString('base64');
}

const paid = (url: string, header: string, signal?: AbortSignal) => fetch(url, { headers: { 'PAYMENT-SIGNATURE': header }, ...(signal ? { signal } : {}) });
const balanceOf = (owner: string) => tokenBalance(localnet.urls.rpc, owner, localnet.stablecoinMint);
/** Retries the same payment until it is answered 200; every answer before must be settlement_pending. */
async function retryUntilAnswered(url: string, header: string): Promise<Response> {
  const answered = async (): Promise<Response | false> => {
    const res = await paid(url, header);
    if (res.status === 200) return res;
    expect(res.status).toBe(402);
    expect((await readJson(res)).error).toMatch(/^settlement_pending/);
    return false;
  };
  return vi.waitUntil(answered, { timeout: 30_000, interval: 500 }).catch((err: unknown) => {
    throw err instanceof Error && !/Timed out/.test(err.message) ? err : new Error('the pending settlement was never answered');
  });
}

beforeAll(async () => {
  ({ localnet, upstreams } = await startTestLocalnet());
  proxy = await startLossyProxy(localnet.urls.rpc);
  payer = await fundedPayer(localnet.urls.rpc, 10_000_000);
});
afterAll(async () => {
  proxy.server.closeAllConnections();
  proxy.server.close();
  await localnet.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a settlement not confirmed within the settle time-out', () => {
  let service: RunningService;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = newDir();
    service = await start(dataDir, 1);
  });
  afterAll(async () => service.close());

  it('answers 402 settlement_pending, then the stored 200 with PAYMENT-RESPONSE and receipt on a retry, exactly once', async () => {
    const url = `${service.url}/v1/epoch`;
    const header = await officialPaymentHeader(url);
    const payTo = service.terms.svm.payTo;
    const [payToBefore, payerBefore] = await Promise.all([balanceOf(payTo), balanceOf(payer.signer.address)]);
    const ledgerBefore = service.ledger.head().treeSize;
    const first = await paid(url, header);
    expect(first.status).toBe(402);
    expect(await readJson(first)).toMatchObject({ error: 'settlement_pending', message: expect.stringMatching(/^transaction \w+ was sent/) });
    expect(service.ledger.head().treeSize).toBe(ledgerBefore);

    const answered = await retryUntilAnswered(url, header);
    const body = await readJson(answered);
    for (const k of ['epoch', 'slotIndex', 'slotsInEpoch']) expect(Number.isInteger(body[k])).toBe(true);
    const settled = decodePaymentResponseHeader(answered.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: SOLANA, payer: payer.signer.address });
    expect(answered.headers.get(RECEIPT_HEADER.toLowerCase())).toBeTruthy();
    expect(service.ledger.head().treeSize).toBe(ledgerBefore + 1);

    // Sent once more: the same 200 and receipt, no second charge and no second entry.
    const again = await paid(url, header);
    expect(again.status).toBe(200);
    expect(again.headers.get(RECEIPT_HEADER.toLowerCase())).toBe(answered.headers.get(RECEIPT_HEADER.toLowerCase()));
    expect(service.ledger.head().treeSize).toBe(ledgerBefore + 1);
    expect(await balanceOf(payTo)).toBe(payToBefore + EPOCH_PRICE);
    expect(await balanceOf(payer.signer.address)).toBe(payerBefore - EPOCH_PRICE);
  });

  it('writes the settlement record to disk before the transaction reaches the node', async () => {
    const url = `${service.url}/v1/epoch?rate=alt`;
    const header = await officialPaymentHeader(url);
    const seen: { signature: string; onDisk: boolean }[] = [];
    proxy.onSend = (signature) =>
      seen.push({ signature, onDisk: readFileSync(join(dataDir, 'replay', 'pending-settlements.log'), 'utf8').includes(signature) });
    try {
      expect((await readJson(await paid(url, header))).error).toMatch(/^settlement_pending/);
    } finally {
      proxy.onSend = null;
    }
    expect(seen).toEqual([{ signature: expect.any(String), onDisk: true }]);
    expect((await retryUntilAnswered(url, header)).status).toBe(200);
  });

  it('resolves the pending settlement after a restart over the same data dir', async () => {
    const url = `${service.url}/v1/epoch?rate=primary`;
    const header = await officialPaymentHeader(url);
    const payToBefore = await balanceOf(service.terms.svm.payTo);
    const first = await paid(url, header);
    expect((await readJson(first)).error).toMatch(/^settlement_pending/);
    await service.close();
    service = await start(dataDir, 1);
    const answered = await retryUntilAnswered(`${service.url}/v1/epoch?rate=primary`, header);
    expect(decodePaymentResponseHeader(answered.headers.get('payment-response')!)).toMatchObject({ success: true });
    expect(await balanceOf(service.terms.svm.payTo)).toBe(payToBefore + EPOCH_PRICE);
    // Sent once more: the same answer, and still one charge.
    const again = await paid(`${service.url}/v1/epoch?rate=primary`, header);
    expect(again.status).toBe(200);
    expect(again.headers.get(RECEIPT_HEADER.toLowerCase())).toBe(answered.headers.get(RECEIPT_HEADER.toLowerCase()));
    expect(await balanceOf(service.terms.svm.payTo)).toBe(payToBefore + EPOCH_PRICE);
  });

  it('a transaction that never reached the chain stays pending, then is released once its blockhash expired', async () => {
    const url = `${service.url}/v1/epoch?rate=both`;
    const header = await officialPaymentHeader(url);
    const payToBefore = await balanceOf(service.terms.svm.payTo);
    proxy.dropSends = true;
    try {
      const first = await paid(url, header);
      expect((await readJson(first)).error).toMatch(/^settlement_pending/);
      expect(proxy.dropped).toBe(1);
    } finally {
      proxy.dropSends = false;
    }
    const stillPending = await paid(url, header);
    expect(stillPending.status).toBe(402);
    expect(await readJson(stillPending)).toMatchObject({
      error: 'settlement_pending',
      message: expect.stringMatching(/^transaction \w+ is not confirmed yet/),
    });
    // Only exactly this payment resolves the record: the same transaction in an altered payload does not.
    const altered = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    altered.payload.note = 'altered';
    const other = await paid(url, Buffer.from(JSON.stringify(altered)).toString('base64'));
    expect(await readJson(other)).toMatchObject({ error: 'duplicate_settlement', message: expect.stringMatching(/^another payment with this key/) });
    for (let i = 0; i < BLOCKS_TO_EXPIRE; i++) localnet.chain.advanceSlot();
    const expired = await paid(url, header);
    expect(expired.status).toBe(402);
    expect((await readJson(expired)).error).toMatch(/^invalid_exact_svm_transaction_expired/);
    // Released: the same payment is judged again (its blockhash is dead now), not refused as a duplicate.
    const judged = await paid(url, header);
    expect((await readJson(judged)).error).toMatch(/^invalid_exact_svm_transaction_simulation_failed/);
    expect(await balanceOf(service.terms.svm.payTo)).toBe(payToBefore);
  });
});

describe('payment-identifier answers survive a restart', () => {
  let service: RunningService;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = newDir();
    service = await start(dataDir, 30_000);
  });
  afterAll(async () => service.close());

  it('same id and payload after a restart: the same answer, no new charge; same id, other payload: 409', async () => {
    const url = `${service.url}/v1/epoch`;
    const id = 'pay_restart_0123456789abcdef';
    const header = await officialPaymentHeader(url, id);
    const before = await balanceOf(service.terms.svm.payTo);
    const first = await paid(url, header);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    await service.close();
    service = await start(dataDir, 30_000);
    const second = await paid(`${service.url}/v1/epoch`, header);
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(firstBody);
    expect(second.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    expect(second.headers.get(RECEIPT_HEADER.toLowerCase())).toBe(first.headers.get(RECEIPT_HEADER.toLowerCase()));
    const other = await officialPaymentHeader(`${service.url}/v1/epoch`, id);
    const conflict = await paid(`${service.url}/v1/epoch`, other);
    expect(conflict.status).toBe(409);
    expect(await readJson(conflict)).toMatchObject({ error: 'payment_identifier_conflict' });
    expect(await balanceOf(service.terms.svm.payTo)).toBe(before + EPOCH_PRICE);
  });

  it('a client that disconnects mid-settlement gets the answer on a retry with its id, charged once', async () => {
    const url = `${service.url}/v1/epoch?rate=both`;
    const id = 'pay_disconnect_0123456789abcdef';
    const header = await officialPaymentHeader(url, id);
    const before = await balanceOf(service.terms.svm.payTo);
    const abort = new AbortController();
    // The client leaves the moment the settlement transaction is on its way to the node.
    const sent = new Promise<void>((resolve) => {
      proxy.onSend = () => resolve();
    });
    const gone = paid(url, header, abort.signal).catch((err: unknown) => err);
    await sent;
    proxy.onSend = null;
    abort.abort();
    await gone;
    // However far settlement had got when the client left, the retry ends in one 200 and one charge.
    const answered = await vi.waitUntil(
      async () => {
        const res = await paid(url, header);
        return res.status === 200 && res;
      },
      { timeout: 20_000, interval: 300 },
    );
    expect(answered?.status).toBe(200);
    expect(decodePaymentResponseHeader(answered!.headers.get('payment-response')!)).toMatchObject({ success: true, payer: payer.signer.address });
    expect(await balanceOf(service.terms.svm.payTo)).toBe(before + EPOCH_PRICE);
  });
});
