/**
 * The real service whose Base RPC is a proxy that can hold one send (held-evm-send-rpc.ts), for the
 * racing-payer attacks: hold the first transaction of a burst at the RPC (a node that has not
 * mined it yet), see whether the rest of the burst is answered meanwhile or estimated and queued
 * behind it, then release it and count what was mined.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { createPublicClient, http } from 'viem';
import { startService, type RunningService } from '../../src/service/service.ts';
import { type HeldEvmSendRpc, startHeldEvmSendRpc } from './held-evm-send-rpc.ts';
import { startTestLocalnet } from './test-service.ts';
import { testServiceConfig } from './test-support.ts';

export interface HeldSendService {
  readonly localnet: Localnet;
  readonly proxy: HeldEvmSendRpc;
  readonly service: RunningService;
  close(): Promise<void>;
}

/** Starts the localnet, the proxy (counting gas estimates of calls to `estimatesTo(localnet)`) and the service behind it (with `argv` added). */
export async function startHeldSendService(estimatesTo: (localnet: Localnet) => string, argv: readonly string[] = []): Promise<HeldSendService> {
  const started = await startTestLocalnet();
  const { localnet } = started;
  const proxy = await startHeldEvmSendRpc(localnet.evm.url, estimatesTo(localnet));
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  // The held send must not time out in the relayer's RPC client while the others are answered.
  const config = testServiceConfig(dataDir, ['--evm-rpc-timeout-ms', '120000', ...argv]);
  const service = await startService(config, { upstreams: { ...started.upstreams, evm: { ...started.upstreams.evm!, rpcUrl: proxy.url } } });
  return {
    localnet,
    proxy,
    service,
    async close() {
      await proxy.close();
      await service.close();
      await localnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends the burst with the first send held: 'the others answered' once all but one of `answers`
 * settled while it is held, 'every one estimated' if instead `answers.length` gas estimates
 * reached the node (each queued behind the held send, to be sent on release). Releases it.
 */
export async function raceWhileHeld<T>(proxy: HeldEvmSendRpc, send: () => Promise<T>[]): Promise<{ outcome: string; answers: T[] }> {
  proxy.holdNextSend();
  const answers = send();
  await proxy.sendHeld;
  let answered = 0;
  const others = new Promise<string>((resolve) => {
    for (const a of answers) void a.then(() => ++answered === answers.length - 1 && resolve('the others answered'));
  });
  const outcome = await Promise.race([others, proxy.estimatesAtLeast(answers.length).then(() => 'every one estimated')]);
  proxy.release();
  return { outcome, answers: await Promise.all(answers) };
}

/** The local EVM's head block, read fresh (viem keeps a block number for 4 s by default). */
export const headBlock = (localnet: Localnet): Promise<bigint> => createPublicClient({ transport: http(localnet.evm.url), cacheTime: 0 }).getBlockNumber();

/** Transactions mined after block `from`, and how many of them reverted. */
export async function minedSince(localnet: Localnet, from: bigint): Promise<{ sent: number; reverted: number }> {
  const chain = createPublicClient({ transport: http(localnet.evm.url), cacheTime: 0 });
  const head = await chain.getBlockNumber();
  let sent = 0;
  let reverted = 0;
  for (let n = from + 1n; n <= head; n++) {
    for (const hash of (await chain.getBlock({ blockNumber: n })).transactions) {
      sent++;
      if ((await chain.getTransactionReceipt({ hash })).status === 'reverted') reverted++;
    }
  }
  return { sent, reverted };
}
