/**
 * kill -9 between answers and the claim loses no accepted voucher: the real service (a child
 * process in mainnet mode, against a localnet in this test's process, so the chain outlives it)
 * answers a payer's voucher calls; it is killed with a call in flight and started again on the
 * same data dir; the in-flight payment sent again is answered (once), the official client resyncs
 * from the corrective 402 and pays on, and the claim puts exactly every answered call on chain.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localnetMainnetArgs } from '../../bench/harness/mainnet-args.ts';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { channelOf, channelPayer, channelTerms } from '../helpers/channel-payer.ts';
import { killService, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { worldSnapshots } from '../helpers/world-snapshots.ts';

const PRICE = 1000n;
const BEFORE_KILL = 15;
let root: string;
let net: Localnet;
let args: string[];
let service: ServiceProcess | null = null;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'channels-crash-'));
  net = await startLocalnet({
    host: '127.0.0.1',
    rpcPort: 0,
    geyserPort: 0,
    marketPort: 0,
    slotMs: 400,
    slotsPerEpoch: 64,
    seed: 'channels-crash',
    ...worldSnapshots(),
  });
  const payTo = evmAddressOfKey(generateEvmKey());
  args = [
    ...localnetMainnetArgs(net, join(root, 'relayer.key')),
    '--evm-pay-to',
    payTo,
    '--channel-claim-threshold',
    '999999999',
    '--channel-claim-age',
    '999999',
  ];
  service = await spawnService(join(root, 'data'), args);
}, 240_000);
afterAll(async () => {
  await killService(service);
  await net?.close();
  rmSync(root, { recursive: true, force: true });
});

async function claimNow(s: ServiceProcess): Promise<any> {
  const token = readFileSync(join(root, 'data', 'admin-token'), 'utf8').trim();
  const res = await fetch(`${s.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

describe('kill -9 of a channel-serving instance', () => {
  it('loses no accepted voucher: every answered call, and only those, is claimed after the restart', async () => {
    const terms = await channelTerms(`${service!.url}/v1/epoch`);
    const payer = await channelPayer(net.evm, 1_000_000n, 100n * PRICE);
    // Each 200's charge: the cumulative amount its PAYMENT-RESPONSE names (a retried voucher's stored 200 names the same one).
    const charges = new Set<string>();
    const answer = async (res: Response) => {
      expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
      charges.add((decodePaymentResponseHeader(res.headers.get('payment-response')!).extra as any).channelState.chargedCumulativeAmount);
      await res.arrayBuffer();
    };
    for (let i = 0; i < BEFORE_KILL; i++) await answer(await payer.pay(`${service!.url}/v1/epoch`));
    // One more call in flight when the process dies: its payment header is what the client sent.
    const inFlight = payer.pay(`${service!.url}/v1/epoch`).then(
      async (r) => (await answer(r), 200),
      () => 0,
    );
    while (
      payer.lastPayment === null ||
      !Buffer.from(payer.lastPayment, 'base64')
        .toString()
        .includes(String((BigInt(BEFORE_KILL) + 1n) * PRICE))
    ) {
      await new Promise((r) => setImmediate(r));
    }
    await killService(service);
    const status = await inFlight;
    const lost = payer.lastPayment!;

    service = await spawnService(join(root, 'data'), args);
    if (status !== 200) {
      // The identical payment again: answered from the stored 200 if the charge was made, or processed now.
      await answer(await fetch(`${service.url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': lost } }));
    }
    // The official client pays on: its stale state is resynced by a corrective 402 or the stored answer.
    for (let i = 0; i < 3; i++) await answer(await payer.pay(`${service.url}/v1/epoch`));
    const claimed = await claimNow(service);
    expect(claimed.lastError).toBeNull();
    const { channelId } = channelOf(payer, terms);
    const answered = [...charges].map(BigInt).sort((x, y) => (x < y ? -1 : 1));
    // Every answered charge is one price above the one before: no charge was lost or made twice.
    expect(answered).toEqual(answered.map((_, i) => BigInt(i + 1) * PRICE));
    expect(answered.length).toBeGreaterThanOrEqual(BEFORE_KILL + 2);
    expect((await new BatchSettlementChain(net.evm).channel(channelId)).totalClaimed).toBe(BigInt(answered.length) * PRICE);
  }, 300_000);
});
