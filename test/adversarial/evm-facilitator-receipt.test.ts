/**
 * Attack (issue 28 row 6, the facilitator path): with `--facilitator-url`, the facilitator's
 * `/settle` answer names the transaction that paid. A facilitator that is wrong or compromised
 * (or a payer who got one to answer for it) reports success with a transaction that did not
 * carry this payment: here, the hash of an earlier, real payment from the same payer. Before the
 * fix its word was taken: 200, receipt and ledger entry, payTo unpaid. Now, when the service can
 * read Base (the local EVM here, --evm-rpc-url on mainnet), that transaction's receipt must show
 * this authorization's AuthorizationUsed and its Transfer to payTo.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service/service.ts';
import { startEvmExactScheme } from '../../src/x402/exact-evm/evm-exact-setup.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import { startTestFacilitator, type TestFacilitator } from '../helpers/evm-facilitator-server.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
const PATH = '/v1/epoch';
let localnet: Localnet;
let facilitator: TestFacilitator;
let service: RunningService;
let dataDir = '';
/** While set, the facilitator answers /settle with success and this hash, sending nothing. */
let lie: string | null = null;
const payerKey = generateEvmKey();

beforeAll(async () => {
  const started = await startTestLocalnet();
  localnet = started.localnet;
  const evm = localnet.evm;
  const real = await startEvmExactScheme({
    asset: evm.usdcAddress,
    name: evm.name,
    version: evm.version,
    settlement: { kind: 'relayer', rpcUrl: evm.url, relayerKey: evm.relayerKey as `0x${string}` },
  });
  const lying: ExactScheme = {
    ...real,
    settle: (payment, requirements, signal) =>
      lie === null ? real.settle(payment, requirements, signal) : Promise.resolve({ success: true, transaction: lie, network: BASE }),
  };
  facilitator = await startTestFacilitator(lying);
  dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  const argv = ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', '--facilitator-url', facilitator.url];
  service = await startService(loadConfig({}, argv), { upstreams: started.upstreams });
  await evm.fundUsdc(evmAddressOfKey(payerKey), 1_000_000n);
}, 120_000);

afterAll(async () => {
  await service?.close();
  await facilitator?.close();
  await localnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function pay(): Promise<Response> {
  const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE)!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: localnet.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(payerKey)));
  const res = await fetch(`${service.url}${PATH}`);
  const payment = await client.createPaymentPayload(decodePaymentRequiredHeader(res.headers.get('payment-required')!));
  return fetch(`${service.url}${PATH}`, { headers: { 'payment-signature': Buffer.from(JSON.stringify(payment)).toString('base64') } });
}

async function balanceOf(owner: string): Promise<bigint> {
  const state = await createEvmTokenReader({ rpcUrl: localnet.evm.url, asset: localnet.evm.usdcAddress }).payerState(owner, `0x${'00'.repeat(32)}`);
  if (!state.ok) throw new Error(state.message);
  return state.balance;
}
const ledgerSize = async (): Promise<number> => (await readJson(fetch(`${service.url}/trust/log?limit=1`))).treeSize;

describe('a facilitator that reports another transaction as this payment', () => {
  it('is believed only when the receipt shows this payment: the honest settlement passes, the lie gets 402', async () => {
    const payTo = service.terms.evm.payTo;
    const before = await balanceOf(payTo);
    const honest = await pay();
    expect(honest.status).toBe(200);
    expect(await balanceOf(payTo)).toBe(before + 1000n);
    const earlier = decodePaymentResponseHeader(honest.headers.get('payment-response')!).transaction;

    lie = earlier;
    const ledgerBefore = await ledgerSize();
    const lied = await pay();
    expect(lied.status).toBe(402);
    expect((await readJson(lied)).error).toMatch(/invalid_exact_evm_transfer_event_mismatch/);
    expect(lied.headers.get('x-service-receipt')).toBeNull();
    expect(await ledgerSize()).toBe(ledgerBefore);
    expect(await balanceOf(payTo)).toBe(before + 1000n);
  });
});
