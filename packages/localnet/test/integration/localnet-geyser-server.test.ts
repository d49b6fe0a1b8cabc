/**
 * The localnet Geyser server's unary methods, x-token, keep-alive pings, refusals, from_slot
 * replay and slow-subscriber handling, against the official `@triton-one/yellowstone-grpc` client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { CommitmentLevel } from '@triton-one/yellowstone-grpc';
import { startGeyserServer, type GeyserServer } from '../../src/geyser/geyser-server.ts';
import { createSyntheticChain, makeTransaction } from '../fixtures/synthetic-geyser-chain.ts';
import { connectClient, openStream, settle, type GeyserClient } from './geyser-test-client.ts';

const X_TOKEN = 'local-secret';
const chain = createSyntheticChain();
let server: GeyserServer;
let client: GeyserClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  server = await startGeyserServer({
    events: chain.events,
    head: chain.head,
    host: '127.0.0.1',
    port: 0,
    xToken: X_TOKEN,
    pingIntervalMs: 100,
  });
  client = await connectClient(server.url, X_TOKEN);
  payer = await generateKeyPairSigner();
  for (let i = 0; i < 40; i += 1) chain.produceSlot([]);
});

afterAll(async () => {
  await server.close();
});

/** The client reports the gRPC status in `cause`; this returns message and cause as text. */
async function failureOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    const e = error as Error;
    return `${e.message}: ${e.cause instanceof Error ? e.cause.message : String(e.cause)}`;
  }
  return 'no failure';
}

describe('localnet geyser: unary methods', () => {
  it('answers Ping, GetSlot, GetBlockHeight, GetLatestBlockhash, IsBlockhashValid and GetVersion from the chain head', async () => {
    expect(await client.ping(7)).toEqual({ count: 7 });
    expect(await client.getSlot()).toEqual({ slot: String(chain.head.slot('processed')) });
    expect(await client.getSlot(CommitmentLevel.FINALIZED)).toEqual({ slot: String(chain.head.slot('finalized')) });
    expect(await client.getBlockHeight(CommitmentLevel.CONFIRMED)).toEqual({ blockHeight: String(chain.head.blockHeight('confirmed')) });
    const latest = chain.head.latestBlockhash('processed');
    expect(await client.getLatestBlockhash()).toEqual({
      slot: String(latest.slot),
      blockhash: latest.blockhash,
      lastValidBlockHeight: String(latest.lastValidBlockHeight),
    });
    expect(await client.isBlockhashValid(latest.blockhash)).toEqual({ slot: String(chain.head.slot('processed')), valid: true });
    expect((await client.isBlockhashValid('11111111111111111111111111111111')).valid).toBe(false);
    const version = JSON.parse((await client.getVersion()).version) as { version: { solana: string } };
    expect(version.version.solana).toBe('2.2.0');
    expect(Number((await client.subscribeReplayInfo()).firstAvailable)).toBeGreaterThan(0);
  });
});

describe('localnet geyser: x-token', () => {
  it('refuses unary calls and streams without the right token with UNAUTHENTICATED', async () => {
    const intruder = await connectClient(server.url, 'wrong');
    expect(await failureOf(intruder.getSlot())).toMatch(/invalid or missing x-token/);
    const anonymous = await connectClient(server.url);
    expect(await failureOf(anonymous.ping(1))).toMatch(/invalid or missing x-token/);
    // The client opens the stream eagerly, so the refusal surfaces from subscribe() itself.
    const refusal = await failureOf(intruder.subscribe());
    expect(refusal, refusal).toMatch(/invalid or missing x-token/i);
  });
});

describe('localnet geyser: ping and refusals', () => {
  it('answers a client ping with its id and sends its own pings periodically', async () => {
    const open = await openStream(client, { slots: { s: { filterByCommitment: true } } });
    await open.send({ ping: { id: 42 } });
    const updates = await open.until((u) => u.some((x) => x.pong?.id === 42) && u.some((x) => x.ping), 3_000);
    expect(updates.find((x) => x.pong)?.filters).toEqual([]);
    // The ping did not replace the slot filter.
    const produced = chain.produceSlot([]);
    await open.until((u) => u.some((x) => x.slot?.slot === String(produced)));
    open.close();
  });

  it('refuses an invalid pubkey with INVALID_ARGUMENT and an accounts filter with UNIMPLEMENTED', async () => {
    const bad = await openStream(client, { transactions: { t: { accountInclude: ['not-a-pubkey'] } } });
    await expect(bad.until(() => false)).rejects.toThrow(/invalid argument.*invalid pubkey/i);
    const accounts = await openStream(client, { accounts: { a: { account: [payer.address] } } });
    await expect(accounts.until(() => false)).rejects.toThrow(/not implemented.*not accounts/i);
    expect(await client.ping(2)).toEqual({ count: 2 }); // the server still answers
  });
});

describe('localnet geyser: from_slot replay', () => {
  it('replays the slots since from_slot, then streams live', async () => {
    const first = chain.produceSlot([await makeTransaction(payer, chain.nextSlot(), 0)]);
    chain.produceSlot([]);
    const open = await openStream(client, { fromSlot: String(first), transactions: { t: {} }, blocksMeta: { m: {} } });
    const updates = await open.until((u) => u.filter((x) => x.blockMeta).length >= 2);
    expect(updates.find((x) => x.transaction)?.transaction?.slot).toBe(String(first));
    const live = chain.produceSlot([]);
    await open.until((u) => u.some((x) => x.blockMeta?.slot === String(live)));
    open.close();
    const tooOld = await openStream(client, { fromSlot: '1', slots: { s: {} } });
    await expect(tooOld.until(() => false)).rejects.toThrow(/not available/);
  });
});

describe('localnet geyser: slow subscriber and throughput', () => {
  it('closes a subscriber that stops reading with RESOURCE_EXHAUSTED instead of queueing without bound', async () => {
    const small = await startGeyserServer({ events: chain.events, head: chain.head, host: '127.0.0.1', port: 0, maxQueuedBytes: 256 * 1024 });
    const slowClient = await connectClient(small.url);
    const open = await openStream(slowClient, { transactions: { all: {} } });
    await settle(open, 1);
    open.stream.pause();
    const tx = await makeTransaction(payer, chain.nextSlot(), 0, { cuPrice: 5n, tipLamports: 1_000n });
    for (let i = 0; i < 40 && small.stats().slowSubscribersClosed === 0; i += 1) {
      chain.produceSlot(Array.from({ length: 500 }, () => tx));
      // One turn of the event loop: the server writes, meets the paused reader and counts its queue.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(small.stats().slowSubscribersClosed).toBe(1);
    expect(small.stats().subscribers).toBe(0);
    open.stream.resume();
    await expect(open.until(() => false, 10_000)).rejects.toThrow(/too slow/);
    await small.close();
  });

  // Throughput is measured by `npm run bench -- geyser-caches`; this checks that a burst is
  // delivered whole and in order without the server taking the reader for a slow one.
  it('delivers every transaction of a burst, in slot order, to a reading subscriber without closing it', async () => {
    const open = await openStream(client, { transactions: { all: { vote: false } } });
    await settle(open, 3);
    const perSlot = 500;
    const slots: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      // A transaction carries the slot it was made for, so each slot gets its own.
      const tx = await makeTransaction(payer, chain.nextSlot(), 0, { cuPrice: 5n, tipLamports: 1_000n });
      slots.push(Number(chain.produceSlot(Array.from({ length: perSlot }, () => tx))));
    }
    const total = slots.length * perSlot;
    const updates = await open.until((u) => u.filter((x) => x.transaction).length >= total, 60_000);
    const order = updates.filter((x) => x.transaction).map((x) => Number(x.transaction!.slot));
    expect(order).toHaveLength(total);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    const counts = new Map<number, number>();
    for (const slot of order) counts.set(slot, (counts.get(slot) ?? 0) + 1);
    expect(counts).toEqual(new Map(slots.map((slot) => [slot, perSlot])));
    expect(server.stats().slowSubscribersClosed).toBe(0);
    expect(server.stats().subscribers).toBeGreaterThanOrEqual(1);
    open.close();
  });
});
