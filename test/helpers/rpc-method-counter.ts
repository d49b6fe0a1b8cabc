/**
 * A pass-through proxy in front of a JSON-RPC endpoint that counts the methods it forwarded (single
 * requests and batches), so a test knows how many transactions the service really handed to the
 * chain (`sendTransaction`), not just what the chain did with them afterwards. It can also hold
 * back one reply (`holdNextReply`): the chain answers at once, the service hears it later, as a
 * read still on its way while other things happen.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcMethodCounter {
  readonly url: string;
  /** Requests forwarded so far, by JSON-RPC method. */
  count(method: string): number;
  /** Holds the reply to the next single `method` request whose first parameter is `first`. */
  holdNextReply(method: string, first: string): HeldReply;
  close(): Promise<void>;
}

export interface HeldReply {
  /** Resolves once the request arrived and the chain answered it (the reply is held). */
  readonly held: Promise<void>;
  /** Lets the held reply go to the service. */
  release(): void;
}

interface PendingHold {
  readonly method: string;
  readonly first: string;
  readonly answered: () => void;
  readonly released: Promise<void>;
}

function requestsOf(body: string): Array<{ method: string; first: unknown }> {
  try {
    const parsed = JSON.parse(body) as unknown;
    const requests = Array.isArray(parsed) ? parsed : [parsed];
    return requests.map((r) => {
      const { method, params } = r as { method?: unknown; params?: unknown[] };
      return { method: String(method ?? ''), first: Array.isArray(params) ? params[0] : undefined };
    });
  } catch {
    return [];
  }
}

function holdFor(holds: PendingHold[], requests: ReturnType<typeof requestsOf>): PendingHold | undefined {
  if (requests.length !== 1) return undefined;
  const at = holds.findIndex((h) => h.method === requests[0]!.method && h.first === requests[0]!.first);
  return at < 0 ? undefined : holds.splice(at, 1)[0];
}

/** Starts the proxy to `target` (the RPC's http:// URL) on an ephemeral loopback port. */
export async function startRpcMethodCounter(target: string): Promise<RpcMethodCounter> {
  const counts = new Map<string, number>();
  const holds: PendingHold[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const requests = requestsOf(body.toString());
      for (const { method: m } of requests) counts.set(m, (counts.get(m) ?? 0) + 1);
      const hold = holdFor(holds, requests);
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          const reply = Buffer.from(await upstream.arrayBuffer());
          if (hold) {
            hold.answered();
            await hold.released;
          }
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
          res.end(reply);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (method) => counts.get(method) ?? 0,
    holdNextReply(method, first) {
      let answered!: () => void;
      let release!: () => void;
      const held = new Promise<void>((r) => (answered = r));
      holds.push({ method, first, answered, released: new Promise<void>((r) => (release = r)) });
      return { held, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
