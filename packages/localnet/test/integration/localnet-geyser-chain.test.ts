/**
 * The Geyser server on the real localnet chain (LiteSVM, seeded world, block producer), read by
 * the official client: every landed transaction the producer reports arrives with the
 * compute-unit price and Jito tip the producer generated, and failures carry a decodable error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBase58Decoder } from '@solana/kit';
import { txErrDecode, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { createBlockProducer } from '../../src/traffic/block-producer.ts';
import { startGeyserServer, type GeyserServer } from '../../src/geyser/geyser-server.ts';
import { createLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import { buildWorld, type World } from '../../src/world/world.ts';
import { connectClient, openStream, settle } from './geyser-test-client.ts';

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const SET_COMPUTE_UNIT_PRICE = 3;
const SYSTEM_TRANSFER = 2;
const b58 = getBase58Decoder();

let chain: LocalChain;
let world: World;
let server: GeyserServer;

beforeAll(async () => {
  chain = createLocalChain({ slotsPerEpoch: 64n, startUnixSeconds: 1_750_000_000 });
  world = await buildWorld(chain, { seed: 'geyser-test' });
  server = await startGeyserServer({ events: chain, head: chain, host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Compute-unit price and tip lamports read back from a streamed transaction's message bytes. */
function feesOf(update: SubscribeUpdate): { price: bigint | null; tips: Map<string, bigint> } {
  const message = update.transaction!.transaction!.transaction!.message!;
  const keys = message.accountKeys.map((k) => b58.decode(k));
  let price: bigint | null = null;
  const tips = new Map<string, bigint>();
  for (const ix of message.instructions) {
    const data = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (keys[ix.programIdIndex] === COMPUTE_BUDGET && ix.data[0] === SET_COMPUTE_UNIT_PRICE) price = data.getBigUint64(1, true);
    if (keys[ix.programIdIndex] === SYSTEM && ix.data.length === 12 && data.getUint32(0, true) === SYSTEM_TRANSFER) {
      const to = keys[ix.accounts[1]!]!;
      tips.set(to, (tips.get(to) ?? 0n) + data.getBigUint64(4, true));
    }
  }
  return { price, tips };
}

describe('localnet geyser on the real chain', () => {
  it('streams what the block producer made, compute-unit prices and tips included', async () => {
    const client = await connectClient(server.url);
    const open = await openStream(client, { transactions: { nonVote: { vote: false } }, blocksMeta: { meta: {} }, slots: { slots: {} } });
    await settle(open, 1);
    const producer = createBlockProducer({ chain, world, seed: 11 });
    const produced = Array.from({ length: 8 }, () => producer.step());
    const landed = produced.flatMap((s) => s.transactions.filter((t) => t.landed));
    const lastSlot = String(produced.at(-1)!.slot);
    await open.until((u) => u.filter((x) => x.transaction).length >= landed.length && u.some((x) => x.blockMeta?.slot === lastSlot), 10_000);
    const bySignature = new Map(open.updates.filter((u) => u.transaction).map((u) => [b58.decode(u.transaction!.transaction!.signature), u]));
    const tipAccounts = new Set(world.tipAccounts.map(String));
    let tipped = 0;
    for (const t of landed) {
      const update = bySignature.get(t.signature!);
      expect(update, `${t.kind} ${t.signature}`).toBeDefined();
      const { price, tips } = feesOf(update!);
      expect(price).toBe(t.computeUnitPrice);
      const tipTotal = [...tips].filter(([to]) => tipAccounts.has(to)).reduce((sum, [, v]) => sum + v, 0n);
      expect(tipTotal).toBe(t.tipLamports);
      if (t.tipLamports > 0n) tipped += 1;
      const err = update!.transaction!.transaction!.meta!.err;
      expect(err !== undefined).toBe(t.failed);
      if (err) expect(txErrDecode.decode(err.err)).toBeTruthy();
    }
    expect(tipped).toBeGreaterThan(0);
    const metas = open.updates.filter((u) => u.blockMeta).map((u) => u.blockMeta!);
    for (const slot of produced) {
      const meta = metas.find((m) => m.slot === String(slot.slot));
      expect(meta?.executedTransactionCount).toBe(String(slot.transactions.filter((t) => t.landed).length));
    }
    expect(open.updates.some((u) => u.slot?.status === 1)).toBe(true);
    open.close();
  }, 60_000);
});
