/**
 * An Ethereum JSON-RPC proxy in front of the local EVM that holds the first
 * `eth_sendRawTransaction` it is told to hold until `release()` (a send the node has not answered
 * yet: a slow RPC), and counts the gas estimates of calls to one contract from the moment it is
 * told until the release: how much of a relayer's work waits behind one send, seen without
 * timing anything.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RpcRequest {
  readonly id: unknown;
  readonly method: string;
  readonly params?: unknown[];
}

export interface HeldEvmSendRpc {
  readonly url: string;
  /** Holds the next send (one only) until `release()`; after a release, holds another with a fresh count. */
  holdNextSend(): void;
  /** Resolves once the send of the current hold is held. */
  readonly sendHeld: Promise<void>;
  /** Gas estimates of calls to `estimatesTo` from `holdNextSend()` until `release()`. */
  estimatesWhileHeld(): number;
  /** Resolves once `count` such estimates were counted. */
  estimatesAtLeast(count: number): Promise<void>;
  /** Sends the held transaction on to the node; its caller gets the node's answer. */
  release(): void;
  close(): Promise<void>;
}

async function forward(target: string, body: unknown): Promise<unknown> {
  const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the proxy before `target`; `estimatesTo` is the contract whose gas estimates are counted. */
export async function startHeldEvmSendRpc(target: string, estimatesTo: string): Promise<HeldEvmSendRpc> {
  let armed = false;
  let counting = false;
  let held: { release: () => void } | null = null;
  let released = false;
  let counted = 0;
  let onHeld!: () => void;
  let sendHeld = new Promise<void>((resolve) => {
    onHeld = resolve;
  });
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  async function answer(req: RpcRequest): Promise<unknown> {
    if ((req.method === 'eth_estimateGas' || req.method === 'eth_fillTransaction') && counting && !released) {
      const to = (req.params?.[0] as { to?: string } | undefined)?.to ?? '';
      if (to.toLowerCase() === estimatesTo.toLowerCase()) {
        counted++;
        for (const w of waiters.splice(0)) (counted >= w.count ? w.resolve : () => waiters.push(w))();
      }
    }
    if (req.method === 'eth_sendRawTransaction' && armed) {
      armed = false;
      await new Promise<void>((resolve) => {
        held = { release: resolve };
        onHeld();
      });
    }
    return forward(target, req);
  }

  const server: Server = createServer((req, res) => {
    readBody(req)
      .then(async (text) => {
        const body = JSON.parse(text) as RpcRequest | RpcRequest[];
        const out = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      })
      .catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdNextSend: () => {
      // Once released, the proxy can hold another send: a fresh hold, its own count.
      if (released) {
        released = false;
        held = null;
        counted = 0;
        sendHeld = new Promise<void>((resolve) => {
          onHeld = resolve;
        });
      }
      armed = true;
      counting = true;
    },
    get sendHeld() {
      return sendHeld;
    },
    estimatesWhileHeld: () => counted,
    estimatesAtLeast: (count) => (counted >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    release() {
      released = true;
      (held as { release: () => void } | null)?.release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        released = true;
        (held as { release: () => void } | null)?.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
