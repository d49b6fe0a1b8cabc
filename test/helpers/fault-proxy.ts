/**
 * An HTTP proxy in front of an upstream (Solana RPC, a market source) whose behaviour a test
 * switches at any moment: pass, hang (never answer), slow (answer after a delay), reset (drop the
 * connection), fail (500), garbage (200 with a body that is not JSON). Counts what it saw, so a
 * test knows the fault was actually hit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultMode = 'pass' | 'hang' | 'slow' | 'reset' | 'fail' | 'garbage';

export interface FaultProxy {
  readonly url: string;
  mode: FaultMode;
  /** When set, the mode applies only to requests whose body it matches (e.g. one JSON-RPC method); the rest pass. */
  onlyWhen: ((body: string) => boolean) | null;
  /** Requests that met a fault (anything but pass and slow). */
  faulted: number;
  close(): Promise<void>;
}

const SLOW_MS = 300;

async function forward(target: string, req: IncomingMessage, res: ServerResponse, body: Buffer, stripPrefix: string): Promise<void> {
  const path = req.url ?? '/';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
  const upstream = await fetch(new URL(path.startsWith(stripPrefix) ? path.slice(stripPrefix.length) || '/' : path, target), {
    method: req.method,
    headers,
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
  });
  res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await upstream.arrayBuffer()));
}

/**
 * Starts a proxy to `target` (an http:// base URL) in mode `pass`. `stripPrefix` is cut from the
 * front of each request's path before it is forwarded: the service may be given a base URL with a
 * path of its own (one carrying an API key) that the upstream does not know.
 */
export async function startFaultProxy(target: string, stripPrefix = ''): Promise<FaultProxy> {
  const hung = new Set<ServerResponse>();
  const proxy: FaultProxy = { url: '', mode: 'pass', onlyWhen: null, faulted: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const mode = proxy.onlyWhen && !proxy.onlyWhen(body.toString('utf8')) ? 'pass' : proxy.mode;
      if (mode !== 'pass' && mode !== 'slow') proxy.faulted++;
      if (mode === 'hang') return void hung.add(res);
      if (mode === 'reset') return void req.socket.destroy();
      if (mode === 'fail') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
      if (mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","result":<<<');
      const go = () => forward(target, req, res, body, stripPrefix).catch(() => req.socket.destroy());
      if (mode === 'slow') setTimeout(go, SLOW_MS);
      else void go();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return proxy;
}
