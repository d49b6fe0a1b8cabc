/**
 * Heap bytes per record of the bounded money stores, which hold every live record in memory as
 * well as on disk (docs/security.md#money-state-no-payer-can-fill, where the bounds and shares
 * are sized from these figures): a settlement record with its kept 200, a payment-identifier
 * answer, and a channel record with its last answer kept and after it is let go. The answers are
 * real: paid 200s captured from the service on the embedded localnet (Base `exact`, the official
 * client), each record given strings of its own.
 *
 *   node --expose-gc --import tsx bench/storage/record-memory.ts [RECORDS]
 *
 * Stand-alone (it needs --expose-gc to read the heap between steps); default 5,000 records a store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import type { HttpReply } from '../../src/errors.ts';
import { createChannelStore, type ChannelRecord } from '../../src/x402/channels/channel-store.ts';
import { createPaidAnswerStore } from '../../src/x402/stores/paid-answer-store.ts';
import { createPendingSettlements, storableAnswer } from '../../src/x402/stores/pending-settlements.ts';
import { startTestService } from '../../test/helpers/test-service.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx bench/storage/record-memory.ts');
  process.exit(2);
}
const RECORDS = Number(process.argv[2] ?? 5000);
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** The string again, as a string of its own (a record read back from disk shares nothing with another). */
const own = (s: string) => `${s.slice(0, -8)}${hex(4)}`;
const heapNow = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Real paid 200s of three endpoints, paid with the official client on the localnet. */
async function paidAnswers(): Promise<HttpReply[]> {
  const t = await startTestService();
  try {
    const evm = t.localnet!.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === 'eip155:8453' && a.scheme === 'exact')!);
    client.setSpendControls({ allowedAssets: [{ network: 'eip155:8453', asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    const pay = wrapFetchWithPayment(fetch, client) as typeof fetch;
    const replies: HttpReply[] = [];
    for (const path of ['/v1/epoch', '/v1/tipfloor', '/v1/priority-fee']) {
      const res = await pay(`${t.url}${path}`);
      const pick = ['content-type', 'cache-control', 'payment-response', 'x-service-receipt', 'server-timing'];
      const headers = Object.fromEntries(pick.map((h) => [h, res.headers.get(h) ?? '']));
      replies.push({ status: res.status, headers, body: await res.text() });
    }
    return replies;
  } finally {
    await t.close();
  }
}

const ownReply = (r: HttpReply): HttpReply => ({
  status: r.status,
  headers: Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k, v.length > 16 ? own(v) : v])),
  body: own(String(r.body)),
});

/** Heap bytes per record after `fill` stored RECORDS of them. */
async function perRecord(fill: (i: number) => Promise<void>): Promise<number> {
  const before = heapNow();
  for (let i = 0; i < RECORDS; i++) await fill(i);
  return Math.round((heapNow() - before) / RECORDS);
}

async function main(): Promise<void> {
  const replies = await paidAnswers();
  const reply = (i: number) => ownReply(replies[i % replies.length]!);
  const dir = mkdtempSync(join(tmpdir(), 'record-memory-'));
  try {
    const pending = createPendingSettlements({ dir, maxEntries: RECORDS + 1 });
    const settlement = await perRecord(async (i) => {
      const key = `0x${hex(20)}:0x${hex(32)}`;
      const answer = reply(i);
      await pending.record(key, {
        network: 'eip155:8453',
        transaction: `0x${hex(32)}`,
        payer: `0x${hex(20)}`,
        payloadSha256: hex(32),
        answer: storableAnswer({ ...answer, headers: { 'content-type': 'application/json', 'cache-control': 'private' } }),
        paid: { originalUrl: '/v1/tipfloor', endpoint: '/v1/tipfloor', priceUsdcUnits: 1000 },
        recordedAt: Date.now(),
      });
      await pending.keepDelivered(key, answer);
    });
    const ids = createPaidAnswerStore({ dir, maxEntries: RECORDS + 1 });
    const paymentId = await perRecord((i) => ids.remember(hex(16), hex(32), reply(i)));
    const channels = createChannelStore({ dir, maxEntries: RECORDS + 1 });
    const withAnswer: string[] = [];
    const channel = await perRecord(async (i) => {
      const id = `0x${hex(32)}`;
      withAnswer.push(id);
      const payer = `0x${hex(20)}`;
      const record: ChannelRecord = {
        config: {
          payer,
          payerAuthorizer: payer,
          receiver: `0x${hex(20)}`,
          receiverAuthorizer: `0x${hex(20)}`,
          token: `0x${hex(20)}`,
          withdrawDelay: 900,
          salt: `0x${hex(32)}`,
        },
        payer,
        charged: '1000',
        signedMax: '1000',
        signature: `0x${hex(65)}`,
        onchain: { balance: '100000', totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0' },
        syncedAt: Date.now(),
        lastRequestAt: Date.now(),
        unclaimedSince: Date.now(),
        last: { resource: '/v1/tipfloor', answer: storableAnswer(reply(i)) },
        rev: 0,
      };
      await channels.put(id, record);
    });
    // The kept answers let go (as the claimer does past their retry window): what an idle channel costs.
    const before = heapNow();
    for (const id of withAnswer) {
      const r = (await channels.get(id))!;
      await channels.put(id, { ...r, last: null });
    }
    const channelIdle = channel + Math.round((heapNow() - before) / RECORDS);
    const at = (perRecordBytes: number, records: number) => Math.round((perRecordBytes * records) / 1e6);
    const figures = {
      records: RECORDS,
      settlementWithKept200Bytes: settlement,
      paymentIdentifierAnswerBytes: paymentId,
      channelWithKeptAnswerBytes: channel,
      channelIdleBytes: channelIdle,
      mbAt: { settlements20000: at(settlement, 20_000), paymentIds20000: at(paymentId, 20_000), channelsIdle100000: at(channelIdle, 100_000) },
    };
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
