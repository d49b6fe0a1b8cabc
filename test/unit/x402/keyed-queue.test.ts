/** The per-channel queue: one task at a time per key, in order; keys independent; a bounded wait; a failure frees the key. */
import { describe, expect, it } from 'vitest';
import { createKeyedQueue } from '../../../src/x402/channels/keyed-queue.ts';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('createKeyedQueue', () => {
  it('runs the tasks of one key one at a time, in arrival order, and other keys beside them', async () => {
    const q = createKeyedQueue(8);
    const log: string[] = [];
    const gate = deferred();
    const first = q.run('a', async () => {
      log.push('a1 start');
      await gate.promise;
      log.push('a1 end');
    });
    const second = q.run('a', async () => void log.push('a2'));
    const other = q.run('b', async () => void log.push('b1'));
    await other;
    expect(log).toEqual(['a1 start', 'b1']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
    expect(q.busyKeys()).toBe(0);
  });

  it('answers null once the bound of waiting tasks is reached, and takes tasks again after', async () => {
    const q = createKeyedQueue(2);
    const gate = deferred();
    const runs = [q.run('k', () => gate.promise), q.run('k', async () => 1), q.run('k', async () => 2)];
    expect(runs.every((r) => r !== null)).toBe(true);
    expect(q.run('k', async () => 3)).toBeNull();
    gate.resolve();
    await Promise.all(runs);
    await expect(q.run('k', async () => 4)).resolves.toBe(4);
  });

  it('a failing task rejects its caller and does not hold the tasks after it', async () => {
    const q = createKeyedQueue(4);
    const failing = q.run('k', async () => {
      throw new Error('boom');
    });
    const next = q.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });
});
