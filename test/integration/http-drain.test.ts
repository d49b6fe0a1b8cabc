/**
 * The front end's close() is bounded: requests still running when the drain time is up have
 * their signals fired (their upstream calls are abandoned) and close() resolves; requests that
 * finish in time are answered normally.
 */
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/server/server.ts';

describe('drain deadline', () => {
  it('aborts a request that outlives the drain time and still resolves close()', async () => {
    let seen: AbortSignal | null = null;
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = createHttpServer({
      drainTimeoutMs: 200,
      routes: [
        {
          method: 'GET',
          path: '/hang',
          // Stands for a call to an upstream that never answers: it ends only when aborted.
          handler: (req) =>
            new Promise((resolve) => {
              seen = req.signal;
              entered();
              req.signal.addEventListener('abort', () => resolve({ status: 503, body: 'aborted' }));
            }),
        },
        { method: 'GET', path: '/quick', handler: () => ({ status: 200, body: 'ok' }) },
      ],
    });
    const port = await server.listen('127.0.0.1', 0);
    const pending = fetch(`http://127.0.0.1:${port}/hang`).then(
      (r) => r.status,
      () => 'dropped',
    );
    await inHandler;
    await server.close();
    expect(seen!.aborted).toBe(true);
    expect(String((seen!.reason as Error).message)).toContain('drain deadline');
    expect(server.inFlight()).toBe(0);
    expect([503, 'dropped']).toContain(await pending);
  });
});
