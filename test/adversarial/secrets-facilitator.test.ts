/**
 * No part of a remote facilitator's URL reaches a client or the log: the built service in mainnet
 * mode settles Base through `--facilitator-url` (a real facilitator over the local EVM, settling
 * with our relayer scheme) whose path carries a marker, behind a fault proxy answering 500,
 * resetting, answering garbage or nothing. Base payments over HTTP and MCP, `/health` and `/uptime`
 * hold no marker, nor does any printed line; the log names the facilitator by scheme and host.
 * (The other upstreams: secrets.test.ts; start-up failures: secrets-startup.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { toolNameOf } from '../../src/mcp/paid-tools.ts';
import { startEvmExactScheme } from '../../src/x402/exact-evm/evm-exact-setup.ts';
import { startTestFacilitator, type TestFacilitator } from '../helpers/evm-facilitator-server.ts';
import { startFaultProxy, type FaultMode, type FaultProxy } from '../helpers/fault-proxy.ts';
import { rawToolCall } from '../helpers/mcp-client.ts';
import { createSecretExposure } from '../helpers/secret-exposure.ts';
import { killService, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const MARKER = 'mArKeR9fAcIlItAtOr';
const EPOCH = CATALOG.find((e) => e.path === '/v1/epoch')!;
const QUERY = new URLSearchParams(EPOCH.example).toString();
const seen = createSecretExposure();
let localnet: Localnet;
let facilitator: TestFacilitator;
let proxy: FaultProxy;
let service: ServiceProcess;
let payer: x402Client;
let dataDir: string;

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet());
  const evm = localnet.evm;
  const settling = { kind: 'relayer' as const, rpcUrl: localnet.urls.evm, relayerKey: evm.relayerKey as `0x${string}` };
  facilitator = await startTestFacilitator(await startEvmExactScheme({ asset: evm.usdcAddress, name: evm.name, version: evm.version, settlement: settling }));
  proxy = await startFaultProxy(facilitator.url, `/${MARKER}`);
  dataDir = mkdtempSync(join(tmpdir(), 'secrets-facilitator-'));
  const market = localnet.urls.market;
  service = await spawnService(
    dataDir,
    [
      ...['--rpc-url', localnet.urls.rpc, '--geyser-url', localnet.urls.geyser, '--facilitator-url', `${proxy.url}/${MARKER}`],
      ...['--svm-pay-to', 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe', '--svm-asset', localnet.stablecoinMint],
      ...['--evm-pay-to', evmAddressOfKey(generateEvmKey()), '--evm-asset', evm.usdcAddress],
      ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
      // A hanging facilitator is given up on in 2 s, not the default 10 s: what is checked is what leaks, not when.
      ...['--facilitator-timeout-ms', '2000'],
    ],
    'built',
  );
  const key = generateEvmKey();
  await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
  payer = new x402Client();
  payer.setSpendControls({ allowedAssets: [{ network: 'eip155:8453', asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  payer.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
}, 180_000);

afterAll(async () => {
  await killService(service);
  await proxy?.close();
  await facilitator?.close();
  await localnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A Base payment for /v1/epoch, built on the route's own 402. */
async function payment() {
  const res = await fetch(`${service.url}${EPOCH.path}?${QUERY}`);
  await seen.response('unpaid', res);
  return payer.createPaymentPayload(decodePaymentRequiredHeader(res.headers.get('payment-required')!));
}

/** One payment over HTTP, another over MCP, then /health and /uptime; the HTTP status. */
async function calls(label: string, [overHttp, overMcp]: readonly object[]): Promise<number> {
  const signature = encodePaymentSignatureHeader(overHttp as never);
  const http = await fetch(`${service.url}${EPOCH.path}?${QUERY}`, { headers: { 'PAYMENT-SIGNATURE': signature } });
  await seen.response(`${label}: paid over HTTP`, http);
  const args = Object.fromEntries(new URLSearchParams(QUERY));
  await seen.response(`${label}: paid over MCP`, await rawToolCall(service.url, toolNameOf(EPOCH.path), args, { meta: { 'x402/payment': overMcp } }));
  for (const path of ['/health', '/uptime']) await seen.response(`${label}: GET ${path}`, await fetch(`${service.url}${path}`));
  return http.status;
}

let from = 0;
beforeEach(() => {
  from = seen.count();
});
const expectNoLeak = () => expect(seen.leaks([MARKER], from)).toEqual([]);

describe('no part of the facilitator URL reaches a client', () => {
  it('with the facilitator passing, a Base payment settles through it', async () => {
    expect(await calls('passing', [await payment(), await payment()])).toBe(200);
    expect(facilitator.calls).toContain('POST /settle');
    expectNoLeak();
  }, 120_000);

  it.each<FaultMode>(['fail', 'reset', 'garbage', 'hang'])(
    'the facilitator %s: Base payments over HTTP and MCP, /health, /uptime',
    async (mode) => {
      const payments = [await payment(), await payment()];
      const before = proxy.faulted;
      proxy.mode = mode;
      try {
        expect(await calls(`facilitator ${mode}`, payments)).not.toBe(200);
      } finally {
        proxy.mode = 'pass';
      }
      expect(proxy.faulted).toBeGreaterThan(before);
      expectNoLeak();
    },
    120_000,
  );

  it('nor any line the service printed, where the facilitator is named by scheme and host', () => {
    seen.add('service stdout', service.stdout());
    seen.add('service stderr', service.stderr());
    const lines = service.stderr().split('\n');
    expect(lines.some((l) => l.startsWith('payments: refused unexpected_verify_error: ') && l.includes(proxy.url))).toBe(true);
    expectNoLeak();
  });
});
