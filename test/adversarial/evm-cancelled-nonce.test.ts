/**
 * Attack (issue 28 row 6): a Base `exact` payment ends `settlement_pending` (the broadcast fails at
 * the RPC), the payer then burns its EIP-3009 nonce with `cancelAuthorization` and retries the
 * same payment. Before the fix the settler took "nonce used" for "landed": the retry got a 200, a
 * receipt and a ledger entry while payTo received nothing. Now only our recorded transaction's
 * receipt (AuthorizationUsed + Transfer to payTo from the token) counts as paid.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, defineChain, http, parseSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service/service.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
const PATH = '/v1/epoch?rate=both';
const CANCEL_ABI = [
  {
    type: 'function',
    name: 'cancelAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
] as const;

let localnet: Localnet;
let proxy: FaultProxy;
let service: RunningService;
let dataDir = '';
const payerKey = generateEvmKey();
const payer = evmAddressOfKey(payerKey);

beforeAll(async () => {
  const started = await startTestLocalnet();
  localnet = started.localnet;
  // The service reaches the local EVM through a proxy that can drop the broadcast alone.
  proxy = await startFaultProxy(localnet.evm.url);
  proxy.onlyWhen = (body) => body.includes('eth_sendRawTransaction');
  dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0']);
  service = await startService(config, { upstreams: { ...started.upstreams, evm: { ...started.upstreams.evm!, rpcUrl: proxy.url } } });
  await localnet.evm.fundUsdc(payer, 1_000_000n);
  await localnet.evm.fundEth(payer, 10n ** 17n);
}, 120_000);

afterAll(async () => {
  await service?.close();
  await proxy?.close();
  await localnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function paymentHeader(): Promise<{ header: string; nonce: `0x${string}` }> {
  const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE)!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: localnet.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(payerKey)));
  const res = await fetch(`${service.url}${PATH}`);
  const payment = await client.createPaymentPayload(decodePaymentRequiredHeader(res.headers.get('payment-required')!));
  const nonce = (payment.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce;
  return { header: Buffer.from(JSON.stringify(payment)).toString('base64'), nonce };
}

/** The payer burns its own nonce: EIP-3009 `cancelAuthorization`, signed and sent by the payer. */
async function cancelNonce(nonce: `0x${string}`): Promise<void> {
  const account = evmAccountFromKey(payerKey);
  const chain = defineChain({
    id: 8453,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [localnet.evm.url] } },
  });
  const signature = await account.signTypedData({
    domain: { name: localnet.evm.name, version: localnet.evm.version, chainId: 8453, verifyingContract: localnet.evm.usdcAddress as `0x${string}` },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: account.address, nonce },
  });
  const { v, r, s } = parseSignature(signature);
  const wallet = createWalletClient({ account, chain, transport: http(localnet.evm.url) });
  await wallet.writeContract({
    address: localnet.evm.usdcAddress as `0x${string}`,
    abi: CANCEL_ABI,
    functionName: 'cancelAuthorization',
    args: [account.address, nonce, Number(v), r, s],
  });
}

const reader = () => createEvmTokenReader({ rpcUrl: localnet.evm.url, asset: localnet.evm.usdcAddress });
async function balanceOf(address: string): Promise<bigint> {
  const state = await reader().payerState(address, `0x${'00'.repeat(32)}`);
  if (!state.ok) throw new Error(state.message);
  return state.balance;
}
const ledgerSize = async (): Promise<number> => (await readJson(fetch(`${service.url}/trust/log?limit=1`))).treeSize;

describe('a pending Base payment whose nonce the payer cancels', () => {
  it('is refused on retry: 402, no receipt, no ledger entry, payTo unpaid', async () => {
    const payTo = service.terms.evm.payTo;
    const [payToBefore, ledgerBefore] = [await balanceOf(payTo), await ledgerSize()];
    const { header, nonce } = await paymentHeader();
    proxy.mode = 'reset';
    const first = await fetch(`${service.url}${PATH}`, { headers: { 'payment-signature': header } });
    expect(first.status).toBe(402);
    expect((await readJson(first)).error).toMatch(/^settlement_pending/);
    expect(proxy.faulted).toBeGreaterThan(0);
    proxy.mode = 'pass';

    await cancelNonce(nonce);
    const used = await reader().payerState(payer, nonce);
    expect(used.ok && used.nonceUsed).toBe(true);

    const retry = await fetch(`${service.url}${PATH}`, { headers: { 'payment-signature': header } });
    const body = await readJson(retry);
    expect(retry.status).toBe(402);
    expect(body.error).toMatch(/invalid_exact_evm_nonce_already_used/);
    expect(retry.headers.get('x-service-receipt')).toBeNull();
    expect(await ledgerSize()).toBe(ledgerBefore);
    expect(await balanceOf(payTo)).toBe(payToBefore);
    // The refused payment leaves the service healthy: an honest payment right after is served.
    const honest = await paymentHeader();
    const ok = await fetch(`${service.url}${PATH}`, { headers: { 'payment-signature': honest.header } });
    expect(ok.status).toBe(200);
    expect(await balanceOf(payTo)).toBe(payToBefore + 1000n);
  });
});
