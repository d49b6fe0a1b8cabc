/**
 * Attack: one Base payer whose USDC covers one deposit opens several channels at once (the same
 * key, other salts: other channel ids), each with a deposit of its whole balance. Each deposit
 * passes the facilitator's verification alone (its balance read and simulation see the whole
 * balance while the first deposit is unmined), and each gas estimate runs before the first is
 * mined, so before the defence our relayer sent every one: one landed, the rest reverted on chain
 * at our gas. Now a payer has at most one deposit in flight (per instance): the others are refused
 * (`payer_busy`) after their verification, before anything is signed or sent.
 *
 * The race is made certain: an RPC proxy holds the first deposit's send, and the other deposits
 * must be answered meanwhile. Before the defence they were estimated and queued behind the held
 * send instead, and the test fails at once on the estimates' count.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { CHANNEL_CONTRACT, channelPayer } from '../helpers/channel-payer.ts';
import { type HeldSendService, headBlock, minedSince, raceWhileHeld, startHeldSendService } from '../helpers/held-send-service.ts';
import { readJson } from '../helpers/read-json.ts';

const CHANNELS = 4;
const DEPOSIT = 200_000n;
const PATH = '/v1/epoch';

let t: HeldSendService;

beforeAll(async () => {
  t = await startHeldSendService(() => CHANNEL_CONTRACT);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

it(`${CHANNELS} channels of one payer whose balance covers one deposit, opened at once: one deposit sent, the others refused before any gas is spent`, async () => {
  const key = generateEvmKey();
  const salt = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
  const channels = await Promise.all(
    Array.from({ length: CHANNELS }, (_, n) => channelPayer(t.localnet.evm, n === 0 ? DEPOSIT : 0n, DEPOSIT, { key, salt: salt(n + 1) })),
  );
  const before = await headBlock(t.localnet);
  const { outcome, answers } = await raceWhileHeld(t.proxy, () =>
    channels.map((c) => c.pay(`${t.service.url}${PATH}`).then(async (r) => ({ status: r.status, body: await readJson(r) }))),
  );
  expect(outcome).toBe('the others answered');
  expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
  const refused = answers.filter((a) => a.status === 402);
  expect(refused).toHaveLength(CHANNELS - 1);
  for (const { body } of refused) expect(body.error).toMatch(/^payer_busy/);
  expect(await minedSince(t.localnet, before)).toEqual({ sent: 1, reverted: 0 });
}, 120_000);
