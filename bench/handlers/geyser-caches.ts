/**
 * Geyser caches benchmark (issue 7):
 * - stream updates absorbed per second: synthetic parsed updates fed to the caches' handlers
 *   directly, the same with byte-level parsing of each transaction update included, and end to
 *   end (localnet Geyser server -> official Yellowstone client -> caches, both in this process);
 * - answer latency of the four timing handlers in-process on mainnet-sized windows (150 slots of
 *   1,000 transactions) while a feeder keeps absorbing a slot every 400 ms, against a trivial
 *   async handler measured in the same run (the reference), in `geyser-answer-latency.ts`.
 * The synthetic traffic is `synthetic-updates.ts`. Registered in bench/run.ts as `geyser-caches`.
 */
import { createGeyserStream } from '../../src/chain/geyser/geyser-client.ts';
import { parseTransaction, type ParsedTransaction } from '../../src/chain/geyser/geyser-tx-parse.ts';
import { createTimingCaches } from '../../src/caches/timing-caches.ts';
import { startGeyserServer } from '@solana-x402-intel/localnet';
import { benchAnswerLatency } from './geyser-answer-latency.ts';
import { feed, parsedTx, SCHEDULE, syntheticChain, TIP_IDS, TXS_PER_SLOT, txInfo, WINDOW_SLOTS } from './synthetic-updates.ts';

function absorbRate(withParsing: boolean): Record<string, number> {
  const caches = createTimingCaches({ schedule: SCHEDULE });
  caches.handlers.onSubscribed(null);
  const infos = withParsing ? Array.from({ length: 4096 }, (_, i) => txInfo(i)) : [];
  const make = withParsing ? (i: number) => parseTransaction(infos[i & 4095]!, TIP_IDS)! : parsedTx;
  let slot = feed(caches, 1, WINDOW_SLOTS, TXS_PER_SLOT, make); // fill the window so evictions run
  const before = caches.absorbed;
  const started = performance.now();
  while (performance.now() - started < 2_000) slot = feed(caches, slot, 10, TXS_PER_SLOT, make);
  const seconds = (performance.now() - started) / 1000;
  return {
    updatesPerSecond: Math.round((caches.absorbed - before) / seconds),
    windowSlots: WINDOW_SLOTS,
    txsPerSlot: TXS_PER_SLOT,
    indexedAccounts: caches.fees.indexedAccounts,
  };
}

async function endToEnd(): Promise<Record<string, number>> {
  const chain = syntheticChain();
  const server = await startGeyserServer({ events: chain.events, head: chain.head, host: '127.0.0.1', port: 0 });
  const caches = createTimingCaches({ schedule: SCHEDULE });
  let txs = 0;
  const handlers = {
    ...caches.handlers,
    onTransaction: (slot: number, tx: ParsedTransaction) => {
      txs++;
      caches.handlers.onTransaction(slot, tx);
    },
  };
  const stream = createGeyserStream({ url: server.url, token: null, staleMs: 30_000, handlers });
  stream.start();
  while (!stream.isLive()) {
    chain.slot(0);
    await new Promise((r) => setTimeout(r, 50));
  }
  const slots = 100;
  const perSlot = 500;
  const started = performance.now();
  for (let s = 0; s < slots; s++) {
    chain.slot(perSlot);
    // Yield so the server's writes and the client's reads interleave as on a live stream.
    await new Promise((r) => setImmediate(r));
  }
  chain.slot(0);
  const target = slots * perSlot;
  while (txs < target && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  await stream.close();
  await server.close();
  return { transactions: txs, seconds: Number(seconds.toFixed(2)), transactionUpdatesPerSecond: Math.round(txs / seconds) };
}

/** Runs the whole benchmark. */
export async function benchGeyserCaches(): Promise<Record<string, unknown>> {
  return {
    absorbParsed: absorbRate(false),
    absorbWithByteParsing: absorbRate(true),
    endToEnd: await endToEnd(),
    answerLatency: await benchAnswerLatency(),
  };
}
