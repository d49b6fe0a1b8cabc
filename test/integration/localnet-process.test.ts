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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('the localnet beside the service', () => {
  it(
    'keeps a funded payer and its funding across a SIGKILL of the service; --fresh starts over',
    async () => {
      const dataDir = join(root, 'kept');
      service = await spawnService(dataDir);
      const first = localnetOf(service);
      expect(first.restored).toBe(false);
      expect(first.pid).not.toBe(service.pid);
      const payer = await fundedPayer(service.rpcUrl, 2_000_000);
      const funding = await rpcCall<string>(service.rpcUrl, 'localnet_fundStablecoin', [payer.signer.address, 1_000_000]);
      const slotBefore = await rpcCall<number>(service.rpcUrl, 'getSlot', [{ commitment: 'processed' }]);

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
      await killService(service);
      service = await spawnService(join(root, 'dies'));
      const { pid } = localnetOf(service);
      process.kill(pid, 'SIGKILL');
      const exit = await service.exited;
      expect(exit.code).toBe(1);
      expect(service.stderr()).toContain('the localnet process exited (SIGKILL): stopping the service');
      expect(existsSync(join(root, 'dies', 'service.lock'))).toBe(false);
    },
    TEST_MS,
  );
});
