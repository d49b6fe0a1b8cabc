import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import type { PaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet, startTestService } from '../helpers/test-service.ts';

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
    async process(call: PaidCall) {
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
  it('does not write after the client aborts, signals the handler, and keeps serving', async () => {
    const { processor, seen, open } = gatedProcessor();
    const t = await startTestService({ processor });
    try {
      const payment = await paymentFor(`${t.url}${SMRI}`);
      const controller = new AbortController();
      const pending = fetch(`${t.url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment }, signal: controller.signal });
      const handlerSignal = await seen.entered;
      controller.abort();
      await expect(pending).rejects.toThrow();
      await aborted(handlerSignal);
      open();
      await vi.waitUntil(() => seen.finished === 1);
      expect({ aborted: seen.aborted, finished: seen.finished }).toEqual({ aborted: true, finished: 1 });
      const ok = await fetch(`${t.url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('finishes in-flight requests when closed, then refuses new requests', async () => {
    const { processor, seen, open } = gatedProcessor();
    const t = await startTestService({ processor });
    const payment = await paymentFor(`${t.url}${SMRI}`);
    const pending = fetch(`${t.url}${SMRI}`, { headers: { 'PAYMENT-SIGNATURE': payment, Connection: 'close' } });
    await seen.entered;
    // close() stops accepting at once and then waits for the request still in the handler.
    const closing = t.close();
    open();
    await closing;
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ late: true });
    // A new connection is refused; a kept-alive one gets 503 shutting_down and is closed.
    const after = await fetch(`${t.url}/health`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(after);
  });
});

describe('process lifecycle', () => {
  it('mainnet mode (pointed at a localnet as its upstreams) prints the bound port, creates a 0600 identity and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'x402-main-'));
    const { localnet } = await startTestLocalnet('lifecycle-1');
    const relayerKey = join(dataDir, 'relayer.key');
    writeFileSync(relayerKey, `${localnet.evm.relayerKey}\n`, { mode: 0o600 });
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/main.ts',
        '--port',
        '0',
        '--admin-port',
        '0',
        '--data-dir',
        dataDir,
        '--rpc-url',
        localnet.urls.rpc,
        '--geyser-url',
        localnet.urls.geyser,
        '--evm-rpc-url',
        localnet.urls.evm,
        '--evm-relayer-key',
        relayerKey,
        '--evm-asset',
        localnet.evm.usdcAddress,
        '--svm-asset',
        localnet.stablecoinMint,
        '--svm-pay-to',
        'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe',
        '--evm-pay-to',
        '0x1111111111111111111111111111111111111111',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /listening (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      expect(Number(new URL(url).port)).toBeGreaterThan(0);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect(statSync(join(dataDir, 'identity.json')).mode & 0o777).toBe(0o600);
      const code = await new Promise<number | null>((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      });
      expect(code).toBe(0);
      expect(out).toContain('stopped');
      expect(out).not.toMatch(/\[\s*\d+\s*,\s*\d+\s*,\s*\d+/);
      expect(out).not.toContain(localnet.evm.relayerKey.slice(2));
    } finally {
      child.kill('SIGKILL');
      await localnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a bad configuration listing every problem, exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', 'x', '--svm-pay-to', 'nope', '--wat'], {
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
  it('npm start with no upstream flags runs the localnet, reports it in /health, and stops cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'x402-embedded-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--slot-ms', '200'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 45_000);
        child.stdout.on('data', () => {
          const m = /listening (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      const rpcUrl = /localnet rpc (http:\/\/\S+)/.exec(out)![1]!;
      expect(out).toMatch(/localnet geyser http:\/\/127\.0\.0\.1:\d+/);
      expect(out).toMatch(/localnet market http:\/\/127\.0\.0\.1:\d+/);
      const health = await readJson(fetch(`${url}/health`));
      expect(health.mode).toBe('embedded');
      expect(health.localnet.rpcUrl).toBe(rpcUrl);
      const slot = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
      });
      expect((await readJson(slot)).result).toBeGreaterThan(0);
      const code = await new Promise<number | null>((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGINT');
      });
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
