import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import nacl from 'tweetnacl';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleWorkerEntry } from '../../src/pool/worker-bundle.ts';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

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

  it('rejects an aborted task', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(pool.runTask('signEd25519', { message: new Uint8Array(1) }, controller.signal)).rejects.toThrow();
  });
});

describe('worker entry', () => {
  it('the TypeScript-sources entry re-exports every task of workers/pool-worker.ts (its exports are the task table)', async () => {
    const tasks = Object.keys(await import('../../workers/pool-worker.ts')).sort();
    const wrapper = readFileSync(new URL('../../workers/pool-worker-tsx.mjs', import.meta.url), 'utf8');
    const reexported = [...wrapper.matchAll(/^export const (\w+) = tasks\.(\w+);$/gm)].map((m) => (m[1] === m[2] ? m[1]! : `${m[1]} != ${m[2]}`)).sort();
    expect(tasks.length).toBeGreaterThan(0);
    expect(reexported).toEqual(tasks);
  });
});

describe('bundled worker entry', () => {
  it('is plain JS that Node loads without tsx, exporting every task, built once per process', async () => {
    const entry = new URL('../../workers/pool-worker.ts', import.meta.url);
    const url = await bundleWorkerEntry(entry);
    expect(await bundleWorkerEntry(entry)).toBe(url);
    expect(fileURLToPath(url)).toMatch(/dist\/workers\/pool-worker-[0-9a-f]{16}\.mjs$/);
    // A plain node, no loader: what the pool's workers run must need no TypeScript support.
    const script = `import(${JSON.stringify(url.href)}).then((m) => console.log(Object.keys(m).sort().join(',')))`;
    const exported = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
    const tasks = Object.keys(await import('../../workers/pool-worker.ts')).sort();
    expect(exported).toBe(tasks.join(','));
  });
});
