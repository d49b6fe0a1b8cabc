/**
 * A small x402 v2 facilitator over HTTP for tests (`GET /supported`, `POST /verify`,
 * `POST /settle`), backed by a real ExactScheme (our relayer settler): the remote-facilitator
 * settler is tested against real settlement, not canned answers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from '../../src/x402/types/x402-types.ts';

export interface TestFacilitator {
  readonly url: string;
  /** Request paths seen, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

/** Starts the facilitator on an ephemeral loopback port. */
export async function startTestFacilitator(scheme: ExactScheme): Promise<TestFacilitator> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/supported') {
        return reply(200, {
          kinds: [{ x402Version: 2, scheme: 'exact', network: scheme.network }],
          extensions: [],
          signers: { 'eip155:*': scheme.getSigners() },
        });
      }
      if (req.method !== 'POST' || (req.url !== '/verify' && req.url !== '/settle')) return reply(404, { error: 'not_found' });
      let body: { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, { error: 'invalid_json' });
      }
      const signal = new AbortController().signal;
      const work =
        req.url === '/verify'
          ? scheme.verify(body.paymentPayload, body.paymentRequirements, signal)
          : scheme.settle(body.paymentPayload, body.paymentRequirements, signal);
      work.then(
        (r) => reply(200, r),
        (err: unknown) => reply(500, { error: String(err) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
