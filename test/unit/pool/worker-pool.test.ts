import { readFileSync } from 'node:fs';
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import nacl from 'tweetnacl';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChannelConfig, recoverVoucherSigner } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { createLoopLoad, INLINE_MAX_LOOP_UTILIZATION, LOOP_LOAD_WINDOW_MS } from '../../../src/pool/loop-load.ts';
import { createWorkerPool } from '../../../src/pool/worker-pool.ts';
import { inlinePoolTasks } from '../../../workers/pool-inline.ts';
import type { PoolTasks } from '../../../workers/pool-worker.ts';

const keys = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(7));
const pool = createWorkerPool<PoolTasks>({ size: 2, identitySeed: keys.secretKey.subarray(0, 32) });
afterAll(() => pool.close());

describe('worker pool (node:crypto ed25519, checked against tweetnacl)', () => {
  it('signs with the identity given at creation', async () => {
    const message = new TextEncoder().encode('receipt bytes');
    const signature = await pool.runTask('signEd25519', { message });
    expect(Buffer.from(signature)).toEqual(Buffer.from(nacl.sign.detached(message, keys.secretKey)));
  });

  it('verifies a batch, a wrong message, a flipped byte and a malformed key as plain booleans', async () => {
    const message = new Uint8Array([1, 2, 3]);
    const signature = nacl.sign.detached(message, keys.secretKey);
    const flipped = Uint8Array.from(signature);
    flipped[0]! ^= 1;
    const results = await pool.runTask('verifyEd25519Batch', {
      checks: [
        { publicKey: keys.publicKey, message, signature },
        { publicKey: keys.publicKey, message: new Uint8Array([1, 2, 4]), signature },
        { publicKey: keys.publicKey, message, signature: flipped },
        { publicKey: new Uint8Array(31), message, signature },
      ],
    });
    expect(results).toEqual([true, false, false, false]);
  });

  it("checks a payment's few payer signatures the same on a worker and inline, and refuses more than two", async () => {
    const message = new Uint8Array([9, 8, 7]);
    const signature = nacl.sign.detached(message, keys.secretKey);
    const checks = [
      { publicKey: keys.publicKey, message, signature },
      { publicKey: keys.publicKey, message: new Uint8Array([9, 8, 6]), signature },
    ];
    const inline = inlinePoolTasks(keys.secretKey.subarray(0, 32)).verifyEd25519Few!;
    expect(await pool.runTask('verifyEd25519Few', { checks })).toEqual([true, false]);
    expect(await inline({ checks })).toEqual([true, false]);
    expect(() => inline({ checks: [...checks, checks[0]!] })).toThrow('at most 2 checks');
    await expect(pool.runTask('verifyEd25519Few', { checks: [...checks, checks[0]!] })).rejects.toThrow('at most 2 checks');
  });

  it('rejects an aborted task', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(pool.runTask('signEd25519', { message: new Uint8Array(1) }, controller.signal)).rejects.toThrow();
  });
});

/** The identity's signature over `text`, by tweetnacl. */
const expected = (text: string) => Buffer.from(nacl.sign.detached(new TextEncoder().encode(text), keys.secretKey));

describe('tasks asked for in one round of the event loop', () => {
  const sign = (text: string) => pool.runTask('signEd25519', { message: new TextEncoder().encode(text) });

  it('leave as batches (fewer messages than tasks) and each resolves with its own answer', async () => {
    const before = pool.sent();
    const texts = Array.from({ length: 12 }, (_, i) => `receipt ${i}`);
    const signatures = await Promise.all(texts.map(sign));
    expect(signatures.map((sig) => Buffer.from(sig))).toEqual(texts.map(expected));
    const after = pool.sent();
    expect(after.tasks - before.tasks).toBe(12);
    // 12 tasks over 2 workers: one batch each.
    expect(after.messages - before.messages).toBe(2);
  });

  it('a task that throws fails alone; the rest of its batch answers', async () => {
    const bad = pool.runTask('verifyEd25519Batch', { checks: null as never });
    const good = [sign('a'), sign('b')];
    await expect(bad).rejects.toThrow();
    expect((await Promise.all(good)).map((s) => Buffer.from(s))).toEqual([expected('a'), expected('b')]);
  });

  it('an abort rejects its own task with AbortError, before or after it was sent, and leaves the others', async () => {
    const early = new AbortController();
    const late = new AbortController();
    const before = pool.sent();
    const refused = pool.runTask('signEd25519', { message: new Uint8Array(1) }, early.signal);
    const abandoned = pool.runTask('signEd25519', { message: new Uint8Array(2) }, late.signal);
    const kept = sign('kept');
    early.abort();
    setImmediate(() => late.abort());
    await expect(refused).rejects.toMatchObject({ name: 'AbortError' });
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    expect(Buffer.from(await kept)).toEqual(expected('kept'));
    // The task aborted before its round ended was never sent.
    expect(pool.sent().tasks - before.tasks).toBe(2);
  });
});

describe('EVM tasks (their code is loaded by the first EVM task a worker runs)', () => {
  it('a voucher recovered in the workers names the signer the calling thread recovers, first and later calls alike', async () => {
    const key = generateEvmKey();
    const payer = evmAddressOfKey(key);
    const other = evmAddressOfKey(generateEvmKey());
    const config: ChannelConfig = {
      payer,
      payerAuthorizer: payer,
      receiver: other,
      receiverAuthorizer: other,
      token: other,
      withdrawDelay: 86400,
      salt: `0x${'cd'.repeat(32)}`,
    };
    const channelId = computeChannelId(config as Parameters<typeof computeChannelId>[0], 'eip155:8453');
    const inputs = await Promise.all(
      ['1000', '2000', '3000'].map(async (amount) => {
        const { signature } = await signVoucher(evmAccountFromKey(key), channelId, amount, 'eip155:8453');
        return { config, chainId: 8453, channelId, maxClaimableAmount: amount, signature };
      }),
    );
    // One round, one batch: its tasks wait on the one load of the code; a later task finds it loaded.
    const inWorkers = await Promise.all(inputs.map((input) => pool.runTask('recoverVoucher', input)));
    expect(inWorkers).toEqual(await Promise.all(inputs.map((input) => recoverVoucherSigner(input))));
    expect(inWorkers.map((check) => check.ok && check.signer)).toEqual(inputs.map(() => payer.toLowerCase()));
    expect(await pool.runTask('recoverVoucher', inputs[0]!)).toEqual(inWorkers[0]);
  });
});

describe('solo tasks', () => {
  const soloPool = createWorkerPool<PoolTasks>({ size: 2, identitySeed: keys.secretKey.subarray(0, 32), soloTasks: ['timingPercentiles'] });
  afterAll(() => soloPool.close());

  it('travel alone while the short tasks of the same round share one batch', async () => {
    const before = soloPool.sent();
    const values = Float64Array.from({ length: 1000 }, (_, i) => 1000 - i);
    const percentiles = soloPool.runTask('timingPercentiles', { values, percentiles: [50, 100] });
    const texts = ['x', 'y', 'z'];
    const signatures = texts.map((text) => soloPool.runTask('signEd25519', { message: new TextEncoder().encode(text) }));
    expect(await percentiles).toEqual([500, 1000]);
    expect((await Promise.all(signatures)).map((sig) => Buffer.from(sig))).toEqual(texts.map(expected));
    const after = soloPool.sent();
    expect([after.tasks - before.tasks, after.messages - before.messages]).toEqual([4, 2]);
  });
});

describe('short tasks while the pool idles', () => {
  const ran: string[] = [];
  const inlineSign = inlinePoolTasks(keys.secretKey.subarray(0, 32)).signEd25519!;
  let loopIsBusy = false;
  const idlePool = createWorkerPool<PoolTasks>({
    size: 2,
    loopBusy: () => loopIsBusy,
    identitySeed: keys.secretKey.subarray(0, 32),
    soloTasks: ['timingPercentiles'],
    inlineWhenIdle: {
      signEd25519: (input) => {
        ran.push(new TextDecoder().decode(input.message));
        return inlineSign(input);
      },
      verifyEd25519Batch: () => {
        throw new Error('inline failure');
      },
    },
  });
  afterAll(() => idlePool.close());
  const signOn = (text: string, signal?: AbortSignal) => idlePool.runTask('signEd25519', { message: new TextEncoder().encode(text) }, signal);

  it('run on the calling thread with the same answer when nothing is pending, and go to the workers once something is', async () => {
    ran.length = 0;
    const before = idlePool.sent();
    expect(Buffer.from(await signOn('alone'))).toEqual(expected('alone'));
    expect(ran).toEqual(['alone']);
    // A long task pending: the same short task now goes to the workers, and so do the ones after it.
    const values = Float64Array.from({ length: 200_000 }, (_, i) => i);
    const long = idlePool.runTask('timingPercentiles', { values, percentiles: [50] });
    const queued = await Promise.all(['a', 'b'].map((text) => signOn(text)));
    expect(queued.map((sig) => Buffer.from(sig))).toEqual(['a', 'b'].map(expected));
    await long;
    expect(ran).toEqual(['alone']);
    // Everything settled: idle again, inline again.
    expect(Buffer.from(await signOn('idle again'))).toEqual(expected('idle again'));
    const after = idlePool.sent();
    expect([after.inline - before.inline, after.tasks - before.tasks]).toEqual([2, 3]);
    expect(ran).toEqual(['alone', 'idle again']);
  });

  it('go to the workers while the event loop is busy, though nothing is pending (inline tasks settle at once)', async () => {
    ran.length = 0;
    const before = idlePool.sent();
    loopIsBusy = true;
    try {
      const signed = await Promise.all(['x', 'y'].map((text) => signOn(text)));
      expect(signed.map((sig) => Buffer.from(sig))).toEqual(['x', 'y'].map(expected));
    } finally {
      loopIsBusy = false;
    }
    expect(ran).toEqual([]);
    const after = idlePool.sent();
    expect([after.inline - before.inline, after.tasks - before.tasks]).toEqual([0, 2]);
  });

  it('an inline task that throws rejects, an aborted signal rejects it unrun, and the pool stays idle', async () => {
    await expect(idlePool.runTask('verifyEd25519Batch', { checks: [] })).rejects.toThrow('inline failure');
    const aborted = new AbortController();
    aborted.abort();
    ran.length = 0;
    await expect(signOn('never', aborted.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(ran).toEqual([]);
    await signOn('still inline');
    expect(ran).toEqual(['still inline']);
  });

  it('an aborted batched task counts as settled once: the pool is idle again after its round', async () => {
    const values = Float64Array.from({ length: 200_000 }, (_, i) => i);
    const long = idlePool.runTask('timingPercentiles', { values, percentiles: [50] });
    const controller = new AbortController();
    const abandoned = signOn('abandoned', controller.signal);
    const kept = signOn('kept');
    // After the round is sent: the abort rejects at once, and the batch's outcome for it comes later.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    await Promise.all([long, kept]);
    ran.length = 0;
    await signOn('after');
    expect(ran).toEqual(['after']);
  });
});

describe('threads at start', () => {
  const seed = new Uint8Array(32).fill(5);
  const message = new TextEncoder().encode('offer');

  it('one by default, started with the pool, before any task', async () => {
    const idle = createWorkerPool<PoolTasks>({ size: 2, identitySeed: seed });
    try {
      expect(idle.threads()).toBe(1);
    } finally {
      await idle.close();
    }
  });

  it('none with minThreads 0 while every task runs inline; the first task that leaves the calling thread starts one and is answered', async () => {
    let loopBusy = false;
    const lazy = createWorkerPool<PoolTasks>({ size: 2, minThreads: 0, identitySeed: seed, inlineWhenIdle: inlinePoolTasks(seed), loopBusy: () => loopBusy });
    try {
      const inline = await lazy.runTask('signEd25519', { message });
      expect(lazy.sent()).toEqual({ tasks: 0, messages: 0, inline: 1 });
      expect(lazy.threads()).toBe(0);
      loopBusy = true;
      const onWorker = await lazy.runTask('signEd25519', { message });
      expect(lazy.sent().tasks).toBe(1);
      expect(lazy.threads()).toBe(1);
      expect(Buffer.from(onWorker)).toEqual(Buffer.from(inline));
    } finally {
      await lazy.close();
    }
  });
});

describe('worker entry', () => {
  it('the batch task runs every other task of the table by name and refuses unknown names', async () => {
    const tasks = await import('../../../workers/pool-worker.ts');
    const names = Object.keys(tasks).filter((name) => name !== 'runBatch');
    const outcomes = await tasks.runBatch([...names, 'runBatch', 'toString'].map((name) => ({ name, input: null })));
    const unknown = outcomes.map((o, i) => (!o.ok && String((o.error as Error).message).startsWith('the pool has no task') ? i : -1)).filter((i) => i >= 0);
    expect(unknown).toEqual([names.length, names.length + 1]);
  });

  it('the TypeScript-sources entry re-exports every task of workers/pool-worker.ts (its exports are the task table)', async () => {
    const tasks = Object.keys(await import('../../../workers/pool-worker.ts')).sort();
    const wrapper = readFileSync(new URL('../../../workers/pool-worker-tsx.mjs', import.meta.url), 'utf8');
    const reexported = [...wrapper.matchAll(/^export const (\w+) = tasks\.(\w+);$/gm)].map((m) => (m[1] === m[2] ? m[1]! : `${m[1]} != ${m[2]}`)).sort();
    expect(tasks.length).toBeGreaterThan(0);
    expect(reexported).toEqual(tasks);
  });

  it('the TypeScript-sources entry compiles and runs the tasks when no worker bundle is named (npm run dev)', async () => {
    // A test run names the server bundle's worker (test/helpers/build-setup.ts); a thread reads the name as it starts.
    const named = process.env.POOL_WORKER_BUNDLE;
    delete process.env.POOL_WORKER_BUNDLE;
    const fromSources = createWorkerPool<PoolTasks>({ size: 1, identitySeed: keys.secretKey.subarray(0, 32) });
    try {
      const message = new TextEncoder().encode('from the sources');
      const signature = await fromSources.runTask('signEd25519', { message });
      expect(nacl.sign.detached.verify(message, signature, keys.publicKey)).toBe(true);
    } finally {
      if (named !== undefined) process.env.POOL_WORKER_BUNDLE = named;
      await fromSources.close();
    }
  });
});

describe('event-loop load', () => {
  it('is busy after a window whose utilization passed the bound, and read again only once a window passed', () => {
    let t = 0;
    let active = 0;
    // A fake of node's eventLoopUtilization: cumulative active time, and the delta of two readings.
    type Elu = { idle: number; active: number; utilization: number };
    const elu = ((a?: Elu, b?: Elu) => {
      if (a && b) {
        const span = a.idle + a.active - (b.idle + b.active);
        return { idle: a.idle - b.idle, active: a.active - b.active, utilization: span > 0 ? (a.active - b.active) / span : 0 };
      }
      return { idle: t - active, active, utilization: 0 };
    }) as never;
    const busy = createLoopLoad(elu, () => t);
    expect(busy()).toBe(false);
    t += LOOP_LOAD_WINDOW_MS;
    active += LOOP_LOAD_WINDOW_MS * (INLINE_MAX_LOOP_UTILIZATION + 0.2);
    expect(busy()).toBe(true);
    // Within the window the last reading holds, whatever happens meanwhile.
    t += LOOP_LOAD_WINDOW_MS / 2;
    expect(busy()).toBe(true);
    t += LOOP_LOAD_WINDOW_MS / 2;
    active += 1;
    expect(busy()).toBe(false);
  });
});
