/**
 * kill -9 mid-stream: the real service (a child process in mainnet mode against a localnet in this
 * test's process, so the chain outlives it) streams tipfloor to a socket that paid two periods by
 * voucher; a third voucher is in flight when the process dies. After the restart on the same
 * data dir, the in-flight voucher sent again is answered once (its kept answer if it was charged,
 * a new charge if not), and the ledger, the channel's charges and the claim agree: one entry per
 * charge, every answered charge one period above the one before, none lost or made twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import type { PaymentRequirements } from '@x402/core/types';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localnetMainnetArgs } from '../../bench/harness/mainnet-args.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { BASE, type ChannelPayer, channelOf, channelPayer } from '../helpers/channel-payer.ts';
import { killService, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { openStream, type StreamConnection, type StreamMessage } from '../helpers/stream-client.ts';

const PRICE = 1000n;
let root: string;
let net: Localnet;
let args: string[];
let service: ServiceProcess | null = null;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'streams-crash-'));
  net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 64, seed: 'streams-crash' });
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

const wsOf = (s: ServiceProcess) => `${s.url.replace(/^http/, 'ws')}/v1/stream/tipfloor`;
const ledgerSize = async (s: ServiceProcess) => ((await (await fetch(`${s.url}/ledger?limit=1`)).json()) as { treeSize: number }).treeSize;

async function voucher(payer: ChannelPayer, terms: PaymentRequirements, max: bigint) {
  const { config, channelId } = channelOf(payer, terms);
  const v = await signVoucher(evmAccountFromKey(payer.key), channelId, max.toString(), BASE);
  return { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher: v } };
}

async function termsOf(conn: StreamConnection): Promise<PaymentRequirements> {
  const offer = await conn.nextOf('payment-required');
  return offer.paymentRequired.accepts.find((a: PaymentRequirements) => a.scheme === 'batch-settlement');
}

const chargedOf = (m: StreamMessage) => BigInt(m.paymentResponse.extra.channelState.chargedCumulativeAmount);

describe('kill -9 of an instance mid-stream', () => {
  it('charges and ledger agree after the restart; the in-flight payment is answered once', async () => {
    const payer = await channelPayer(net.evm, 1_000_000n, 100n * PRICE);
    const opened = await payer.pay(`${service!.url}/v1/epoch`);
    expect(opened.status).toBe(200);
    await opened.arrayBuffer();
    const charges = new Set<bigint>([PRICE]);
    const conn = await openStream(wsOf(service!));
    const terms = await termsOf(conn);
    for (const max of [2n * PRICE, 3n * PRICE]) {
      conn.pay(await voucher(payer, terms, max));
      charges.add(chargedOf(await conn.nextOf('payment-response')));
    }
    await conn.nextOf('update');
    const inFlight = await voucher(payer, terms, 4n * PRICE);
    conn.pay(inFlight);
    await killService(service);
    expect((await conn.closed).code).toBe(1006);

    service = await spawnService(join(root, 'data'), args);
    const again = await openStream(wsOf(service));
    await again.nextOf('payment-required');
    again.pay(inFlight);
    const answered = await again.nextOf('payment-response');
    charges.add(chargedOf(answered));
    const sorted = [...charges].sort((x, y) => (x < y ? -1 : 1));
    // Every answered charge is one period above the one before: none lost, none made twice.
    expect(sorted).toEqual([PRICE, 2n * PRICE, 3n * PRICE, 4n * PRICE]);
    // One ledger entry per charge: the call's, and the stream's three (the kept answer of a charged voucher adds none).
    expect(await ledgerSize(service)).toBe(charges.size);
    again.ws.close();

    const token = readFileSync(join(root, 'data', 'admin-token'), 'utf8').trim();
    const claim = (await (await fetch(`${service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json()) as any;
    expect(claim.lastError).toBeNull();
    const { channelId } = channelOf(payer, terms);
    expect((await new BatchSettlementChain(net.evm).channel(channelId)).totalClaimed).toBe(4n * PRICE);
  }, 300_000);
});
