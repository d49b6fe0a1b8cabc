/**
 * Attack: one Base payer whose USDC covers one deposit opens several channels at once (the same
 * key, other salts: other channel ids), each with a deposit of its whole balance. Each deposit
 * passes the facilitator's verification alone (its balance read and simulation see the whole
 * balance while the first deposit is unmined), and each gas estimate runs before the first is
 * mined, so before the defence our relayer sent every one: one landed, the rest reverted on chain
 * at our gas. Now a payer has at most one deposit in flight (per instance): the others are refused
 * (`payer_busy`) before anything is verified, signed or sent.
 *
 * The race is made certain: an RPC proxy holds the first deposit's send, and the other deposits
 * must be answered meanwhile. Before the defence they were estimated and queued behind the held
 * send instead, and the test fails at once on the estimates' count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { startService, type RunningService } from '../../src/service/service.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { CHANNEL_CONTRACT, channelPayer } from '../helpers/channel-payer.ts';
import { type HeldEvmSendRpc, startHeldEvmSendRpc } from '../helpers/held-evm-send-rpc.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { testServiceConfig } from '../helpers/test-support.ts';

const CHANNELS = 4;
const DEPOSIT = 200_000n;
const PATH = '/v1/epoch';

let localnet: Localnet;
let proxy: HeldEvmSendRpc;
let service: RunningService;
let dataDir = '';

beforeAll(async () => {
  const started = await startTestLocalnet();
  localnet = started.localnet;
  proxy = await startHeldEvmSendRpc(localnet.evm.url, CHANNEL_CONTRACT);
  dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  // The held send must not time out in the relayer's RPC client while the others are answered.
  const config = testServiceConfig(dataDir, ['--evm-rpc-timeout-ms', '120000']);
  service = await startService(config, { upstreams: { ...started.upstreams, evm: { ...started.upstreams.evm!, rpcUrl: proxy.url } } });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await service?.close();
  await localnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it(`${CHANNELS} channels of one payer whose balance covers one deposit, opened at once: one deposit sent, the others refused before any gas is spent`, async () => {
  const key = generateEvmKey();
  const salt = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
  const channels = await Promise.all(
    Array.from({ length: CHANNELS }, (_, n) => channelPayer(localnet.evm, n === 0 ? DEPOSIT : 0n, DEPOSIT, { key, salt: salt(n + 1) })),
  );
  const chain = createPublicClient({ transport: http(localnet.evm.url), cacheTime: 0 });
  const before = await chain.getBlockNumber();

  proxy.holdNextSend();
  const answers = channels.map((c) => c.pay(`${service.url}${PATH}`).then(async (r) => ({ status: r.status, body: await readJson(r) })));
  await proxy.sendHeld;
  let answered = 0;
  const others = new Promise<string>((resolve) => {
    for (const a of answers) void a.then(() => ++answered === CHANNELS - 1 && resolve('the others answered'));
  });
  const outcome = await Promise.race([others, proxy.estimatesAtLeast(CHANNELS).then(() => 'every deposit estimated')]);
  expect(outcome).toBe('the others answered');
  proxy.release();

  const settled = await Promise.all(answers);
  expect(settled.filter((a) => a.status === 200)).toHaveLength(1);
  const refused = settled.filter((a) => a.status === 402);
  expect(refused).toHaveLength(CHANNELS - 1);
  for (const { body } of refused) expect(body.error).toMatch(/^payer_busy/);
  let sent = 0;
  let reverted = 0;
  for (let n = before + 1n; n <= (await chain.getBlockNumber()); n++) {
    for (const hash of (await chain.getBlock({ blockNumber: n })).transactions) {
      sent++;
      if ((await chain.getTransactionReceipt({ hash })).status === 'reverted') reverted++;
    }
  }
  expect({ sent, reverted }).toEqual({ sent: 1, reverted: 0 });
}, 120_000);
