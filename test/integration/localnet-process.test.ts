/**
 * The embedded localnet as `npm start` runs it: a process of its own that the service starts,
 * watches and stops with itself, keeping its chains in the data directory. The built service is
 * started as a user starts it; a payer funded on its localnet is still funded after the service
 * is killed (SIGKILL: the localnet saves as it sees its service go) and started again, its
 * funding transaction still has its status; `--fresh` starts the chains over; a localnet that
 * dies stops the service with exit 1 and a sentence.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { type ChannelPayer, channelPayer, channelTerms } from '../helpers/channel-payer.ts';
import { killService, SERVICE_START_TIMEOUT_MS, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { fundedPayer, rpcCall, tokenBalance } from '../helpers/svm-payer.ts';

const TEST_MS = SERVICE_START_TIMEOUT_MS * 3;
let root: string;
let service: ServiceProcess | undefined;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'x402-localnet-process-'));
});
afterAll(async () => {
  await killService(service);
  rmSync(root, { recursive: true, force: true });
});

/** The localnet's process id and where its state went, from the service's start lines. */
function localnetOf(p: ServiceProcess): { pid: number; restored: boolean } {
  const m = /^localnet ready in \S+ s \(process (\d+); (state restored from|new state in) /m.exec(p.stdout());
  expect(m, p.stdout()).not.toBeNull();
  return { pid: Number(m![1]), restored: m![2] === 'state restored from' };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A payer of the service's channels, funded from its localnet's EVM faucet. */
async function serviceChannelPayer(p: ServiceProcess): Promise<ChannelPayer> {
  const health = (await (await fetch(`${p.url}/health`)).json()) as { localnet: { evmRpcUrl: string } };
  const terms = await channelTerms(`${p.url}/v1/epoch`);
  const fundUsdc = async (address: string, units: bigint) => {
    const body = { jsonrpc: '2.0', id: 1, method: 'localnet_fundStablecoin', params: [address, Number(units)] };
    const r = (await (
      await fetch(health.localnet.evmRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json()) as {
      error?: unknown;
    };
    if (r.error) throw new Error(JSON.stringify(r.error));
    return address;
  };
  return channelPayer({ fundUsdc, usdcAddress: terms.asset }, 1_000_000n, 100_000n);
}

/** Pays /v1/epoch through the payer's channel `n` times; returns the deposits made and the last cumulative charge. */
async function channelCalls(p: ServiceProcess, payer: ChannelPayer, n: number): Promise<{ deposits: number; charged: string }> {
  let deposits = 0;
  let charged = '';
  for (let i = 0; i < n; i++) {
    const res = await payer.pay(`${p.url}/v1/epoch`);
    expect(res.status).toBe(200);
    const settle = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    if (settle.transaction) deposits++;
    charged = (settle.extra as { channelState: { chargedCumulativeAmount: string } }).channelState.chargedCumulativeAmount;
    await res.arrayBuffer();
  }
  return { deposits, charged };
}

const gone = (pid: number) => vi.waitUntil(() => !alive(pid), { timeout: 30_000, interval: 100 });

describe('the localnet beside the service', () => {
  it(
    'keeps a funded payer, its funding and a payment channel across a SIGKILL of the service; --fresh starts over',
    async () => {
      const dataDir = join(root, 'kept');
      service = await spawnService(dataDir);
      const first = localnetOf(service);
      expect(first.restored).toBe(false);
      expect(first.pid).not.toBe(service.pid);
      const payer = await fundedPayer(service.rpcUrl, 2_000_000);
      const funding = await rpcCall<string>(service.rpcUrl, 'localnet_fundStablecoin', [payer.signer.address, 1_000_000]);
      const slotBefore = await rpcCall<number>(service.rpcUrl, 'getSlot', [{ commitment: 'processed' }]);
      const channel = await serviceChannelPayer(service);
      expect(await channelCalls(service, channel, 3)).toEqual({ deposits: 1, charged: '3000' });

      await killService(service);
      // The IPC channel dropped: the localnet saved its state and went.
      await gone(first.pid);
      const state = readFileSync(join(dataDir, 'localnet', 'localnet-state.json'), 'utf8');
      expect(state).toContain(payer.signer.address);

      service = await spawnService(dataDir);
      expect(localnetOf(service).restored).toBe(true);
      expect(await tokenBalance(service.rpcUrl, payer.signer.address, service.stablecoinMint)).toBe(3_000_000n);
      const [status] = (await rpcCall<{ value: Array<{ confirmationStatus: string } | null> }>(service.rpcUrl, 'getSignatureStatuses', [[funding]])).value;
      expect(status?.confirmationStatus).toBe('finalized');
      expect(await rpcCall<number>(service.rpcUrl, 'getSlot', [{ commitment: 'processed' }])).toBeGreaterThan(slotBefore);
      // The channel's deposit is still on the local Base: its vouchers go on, no second deposit.
      expect(await channelCalls(service, channel, 2)).toEqual({ deposits: 0, charged: '5000' });
      await killService(service);

      service = await spawnService(dataDir, ['--fresh']);
      expect(localnetOf(service).restored).toBe(false);
      expect(await tokenBalance(service.rpcUrl, payer.signer.address, service.stablecoinMint)).toBe(0n);
    },
    TEST_MS,
  );

  it(
    'a localnet that dies stops its service: exit 1, and the reason on stderr',
    async () => {
      // The service the last test left running (started with --fresh) is the victim: a start of
      // its own would cost a service and a localnet for nothing more. Only if that test stopped
      // before its last start is one started here.
      let dataDir = join(root, 'kept');
      if (service === undefined || service.child.exitCode !== null || service.child.signalCode !== null || !alive(localnetOf(service).pid)) {
        await killService(service);
        dataDir = join(root, 'dies');
        service = await spawnService(dataDir);
      }
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(true);
      const { pid } = localnetOf(service);
      process.kill(pid, 'SIGKILL');
      const exit = await service.exited;
      expect(exit.code).toBe(1);
      expect(service.stderr()).toContain('the localnet process exited (SIGKILL): stopping the service');
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(false);
    },
    TEST_MS,
  );
});
