/**
 * A pass-through proxy in front of a JSON-RPC endpoint that counts the methods it forwarded (single
 * requests and batches), so a test knows how many transactions the service really handed to the
 * chain (`sendTransaction`), not just what the chain did with them afterwards.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcMethodCounter {
  readonly url: string;
  /** Requests forwarded so far, by JSON-RPC method. */
  count(method: string): number;
  close(): Promise<void>;
}

function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    const requests = Array.isArray(parsed) ? parsed : [parsed];
    return requests.map((r) => String((r as { method?: unknown }).method ?? ''));
  } catch {
    return [];
  }
}

/** Starts the proxy to `target` (the RPC's http:// URL) on an ephemeral loopback port. */
export async function startRpcMethodCounter(target: string): Promise<RpcMethodCounter> {
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      for (const m of methodsOf(body.toString())) counts.set(m, (counts.get(m) ?? 0) + 1);
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (method) => counts.get(method) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
