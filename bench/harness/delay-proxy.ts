/**
 * An HTTP proxy that holds every request for a fixed delay before passing it on: a local JSON-RPC
 * made as far away as a hosted mainnet RPC. It counts what passes (HTTP requests, and the JSON-RPC
 * calls inside them by method: a batch is one request of many calls), so a benchmark can tell
 * how many round trips a paid call costs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What passed through so far. */
export interface ProxyCounts {
  readonly requests: number;
  readonly calls: Readonly<Record<string, number>>;
}

export interface DelayProxy {
  readonly url: string;
  /** A copy of the counts now. */
  counts(): ProxyCounts;
  close(): Promise<void>;
}

/** The counts between two readings. */
export function countsBetween(before: ProxyCounts, after: ProxyCounts): ProxyCounts {
  const calls: Record<string, number> = {};
  for (const [method, n] of Object.entries(after.calls)) if (n - (before.calls[method] ?? 0) > 0) calls[method] = n - (before.calls[method] ?? 0);
  return { requests: after.requests - before.requests, calls };
}

function methodsOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.map((c) => String((c as { method?: unknown }).method ?? '?'));
  } catch {
    return ['(not JSON)'];
  }
}

async function forward(target: string, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  const upstream = await fetch(new URL(req.url ?? '/', target), {
    method: req.method ?? 'POST',
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
  });
  res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await upstream.arrayBuffer()));
}

/** Starts a proxy to `target` (an http:// base URL) holding each request `delayMs` first. */
export async function startDelayProxy(target: string, delayMs: number): Promise<DelayProxy> {
  let requests = 0;
  const calls: Record<string, number> = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests += 1;
      for (const m of methodsOf(body)) calls[m] = (calls[m] ?? 0) + 1;
      setTimeout(() => {
        forward(target, req, res, body).catch(() => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
      }, delayMs);
    });
  });
  // The service keeps its connections open; the delay is per request, not per connection.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ requests, calls: { ...calls } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
