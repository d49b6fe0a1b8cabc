import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import type { PaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import { readJson } from '../helpers/read-json.ts';
import { killService, SERVICE_START_TIMEOUT_MS, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { startTestLocalnet, startTestService, type TestService } from '../helpers/test-service.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

const SMRI = '/v1/smri?mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

/**
 * A processor that holds each request open until the test opens the gate, so the client can go
 * away (or the service close) mid-answer at a known point rather than after a guessed delay.
 */
function gatedProcessor() {
  let entered!: (signal: AbortSignal) => void;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const seen = {
    aborted: false,
    finished: 0,
    entered: new Promise<AbortSignal>((resolve) => {
      entered = resolve;
    }),
  };
  const processor: PaymentProcessor = {
    supported: () => ({ kinds: [], signers: {} }),
    async processPaidCall(call: PaidCall) {
      entered(call.request.signal);
      await gate;
      seen.aborted ||= call.request.signal.aborted;
      seen.finished++;
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"late":true}' };
    },
  };
  return { processor, seen, open };
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

async function paymentFor(url: string): Promise<string> {
  const challenge = JSON.parse(Buffer.from((await fetch(url)).headers.get('payment-required')!, 'base64').toString());
  return Buffer.from(JSON.stringify({ x402Version: 2, accepted: challenge.accepts[0], payload: { transaction: 'AA==' } })).toString('base64');
}

describe('abort handling', () => {
  let gated: ReturnType<typeof gatedProcessor>;
  let t: TestService | null = null;
  // One service for both tests, each with a gate of its own (the last test closes it): a start is
  // seconds of CPU. Its processor is the test's gate, so no answer needs the chain's traffic.
  const processor: PaymentProcessor = {
    supported: () => ({ kinds: [], signers: {} }),
    processPaidCall: (call) => gated.processor.processPaidCall(call),
  };
  // Start-up is set-up (the hook's time limit), not the behaviour under test: on a loaded machine
  // the localnet and service alone may take most of a test's 30 s.
  beforeAll(async () => {
    t = await startTestService({ processor }, [], { txsPerSlot: 0 });
  });
  beforeEach(() => {
    gated = gatedProcessor();
  });
  afterAll(async () => {
    await t?.close();
    t = null;
  });

  it('does not write after the client aborts, signals the handler, and keeps serving', async () => {
    const { seen, open } = gated;
    const { url } = t!;
    const payment = await paymentFor(`${url}${SMRI}`);
    const controller = new AbortController();
    const pending = fetch(`${url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment }, signal: controller.signal });
    const handlerSignal = await seen.entered;
    controller.abort();
    await expect(pending).rejects.toThrow();
    await aborted(handlerSignal);
    open();
    await vi.waitUntil(() => seen.finished === 1);
    expect({ aborted: seen.aborted, finished: seen.finished }).toEqual({ aborted: true, finished: 1 });
    const ok = await fetch(`${url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment } });
    expect(ok.status).toBe(200);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('finishes in-flight requests when closed, then refuses new requests', async () => {
    const { seen, open } = gated;
    const service = t!;
    const payment = await paymentFor(`${service.url}${SMRI}`);
    const pending = fetch(`${service.url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment, Connection: 'close' } });
    await seen.entered;
    // close() stops accepting at once and then waits for the request still in the handler.
    t = null;
    const closing = service.close();
    open();
    await closing;
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ late: true });
    // A new connection is refused; a kept-alive one gets 503 shutting_down and is closed.
    const after = await fetch(`${service.url}/health`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(after);
  });
});

describe('process lifecycle', () => {
  // A child's start-up (tsx, the pool, the upstreams' first reads) has the helper's time limit,
  // SERVICE_START_TIMEOUT_MS: on a loaded machine it can take tens of seconds. This one starts
  // from the sources through tsx, as `npm run dev` does (every other spawned service runs the build).
  it(
    'mainnet mode (pointed at a localnet as its upstreams) prints the bound port, creates a 0600 identity and exits 0 on SIGTERM',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'x402-main-'));
      // No background traffic: the test reads the start, /health, the identity file and the exit.
      const { localnet } = await startTestLocalnet(COMMON_TEST_SEED, { txsPerSlot: 0 });
      const relayerKey = join(dataDir, 'relayer.key');
      writeFileSync(relayerKey, `${localnet.evm.relayerKey}\n`, { mode: 0o600 });
      const upstreams = [
        ...['--rpc-url', localnet.urls.rpc, '--geyser-url', localnet.urls.geyser, '--evm-rpc-url', localnet.urls.evm, '--evm-relayer-key', relayerKey],
        ...['--evm-asset', localnet.evm.usdcAddress, '--svm-asset', localnet.stablecoinMint],
        ...['--svm-pay-to', 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe', '--evm-pay-to', '0x1111111111111111111111111111111111111111'],
      ];
      let child: ServiceProcess | null = null;
      try {
        child = await spawnService(dataDir, upstreams, 'source');
        expect(Number(new URL(child.url).port)).toBeGreaterThan(0);
        expect((await fetch(`${child.url}/health`)).status).toBe(200);
        expect(statSync(join(dataDir, 'identity.json')).mode & 0o777).toBe(0o600);
        child.child.kill('SIGTERM');
        expect((await child.exited).code).toBe(0);
        const out = child.stdout() + child.stderr();
        expect(out).toContain('stopped');
        expect(out).not.toMatch(/\[\s*\d+\s*,\s*\d+\s*,\s*\d+/);
        expect(out).not.toContain(localnet.evm.relayerKey.slice(2));
      } finally {
        await killService(child);
        await localnet.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SERVICE_START_TIMEOUT_MS + 60_000,
  );

  // From the build, as `npm start` runs it (the start above runs the sources): the same check, a
  // third of the CPU of loading the sources through tsx.
  it('refuses a bad configuration listing every problem, exit code 2', async () => {
    const child = spawn(process.execPath, ['dist/server/main.js', '--port', 'x', '--svm-pay-to', 'nope', '--wat'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--port must be an integer');
    expect(err).toContain('--svm-pay-to must be a base58 Solana address');
    expect(err).toContain('unknown option --wat');
  });
});

describe('embedded default', () => {
  it(
    'npm start with no upstream flags runs the localnet, reports it in /health, and stops cleanly',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'x402-embedded-'));
      let child: ServiceProcess | null = null;
      try {
        child = await spawnService(dataDir, ['--slot-ms', '200']);
        const out = child.stdout();
        expect(out).toMatch(/localnet geyser http:\/\/127\.0\.0\.1:\d+/);
        expect(out).toMatch(/localnet market http:\/\/127\.0\.0\.1:\d+/);
        const health = await readJson(fetch(`${child.url}/health`));
        expect(health.mode).toBe('embedded');
        expect(health.localnet.rpcUrl).toBe(child.rpcUrl);
        const slot = await fetch(child.rpcUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
        });
        expect((await readJson(slot)).result).toBeGreaterThan(0);
        child.child.kill('SIGINT');
        expect((await child.exited).code).toBe(0);
      } finally {
        await killService(child);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SERVICE_START_TIMEOUT_MS + 60_000,
  );
});
