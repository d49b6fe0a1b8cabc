/**
 * A Solana JSON-RPC proxy that stands for the gap between "the RPC accepted the transaction" and
 * "it landed": while `holding`, a sendTransaction gets the node's preflight (a simulation with
 * signature checks against the localnet; none when it asks `skipPreflight`, as a node forwards
 * such a transaction unsimulated) and, when that passes, the transaction's signature at
 * once, as a real RPC answers before a leader executes it; the transaction itself waits here until
 * `release()` sends it on (skipping preflight, as a leader executes whatever state the chain holds
 * by then) or `drop()` forgets it (a transaction lost on its way). Everything else passes through,
 * and so do the transactions of payers not in `only` when it names some.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeBase58, encodeBase58 } from '../../src/chain/solana/base58.ts';

interface RpcRequest {
  readonly id: unknown;
  readonly method: string;
  readonly params?: unknown[];
}

export interface HeldSendRpc {
  readonly url: string;
  holding: boolean;
  /**
   * While holding, only transactions naming one of these accounts (base58) are held; the rest pass
   * through and land as usual. Empty: every transaction is held.
   */
  readonly only: Set<string>;
  /** Transactions accepted and held, not yet released or dropped (base64 wire). */
  readonly held: string[];
  /** Sends passed through while holding because their preflight failed: what the simulation said. */
  readonly passedThrough: string[];
  /**
   * Run on each send of `only`'s payers (all when empty), before anything else, held or not: the
   * payer's move between the service's read of its account and the transaction reaching the node.
   */
  beforeSend: ((wireBase64: string) => Promise<void>) | null;
  /** Sends of `only`'s payers (all when empty) that asked for no preflight (`skipPreflight`: a node forwards them unsimulated), by signature, held or not. */
  readonly unsimulated: string[];
  /** Resolves once `count` transactions are held. */
  heldAtLeast(count: number): Promise<void>;
  /** Sends every held transaction on to the chain; resolves with each one's signature or error. */
  release(): Promise<Array<{ signature?: string; error?: string }>>;
  drop(): void;
  close(): Promise<void>;
}

async function call(target: string, body: unknown): Promise<unknown> {
  const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

/** The fee payer's signature (the transaction id): the first of the wire's signatures. */
function firstSignature(wireBase64: string): string {
  return encodeBase58(Buffer.from(wireBase64, 'base64').subarray(1, 65));
}

/** Whether the transaction's bytes hold one of `accounts` (an account key is its 32 raw bytes in the message). */
function names(wireBase64: string, accounts: ReadonlySet<string>): boolean {
  const wire = Buffer.from(wireBase64, 'base64');
  for (const a of accounts) if (wire.includes(Buffer.from(decodeBase58(a)!))) return true;
  return false;
}

/** Starts the proxy in front of `target` (the localnet RPC), passing everything until `holding` is set. */
export async function startHeldSendRpc(target: string): Promise<HeldSendRpc> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const proxy: HeldSendRpc = {
    url: '',
    holding: false,
    only: new Set<string>(),
    held: [],
    passedThrough: [],
    unsimulated: [],
    beforeSend: null,
    heldAtLeast: (count) => (proxy.held.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    async release() {
      const wires = proxy.held.splice(0);
      const out = [];
      for (const wire of wires) {
        const r = (await call(target, { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight: true }] })) as {
          result?: string;
          error?: { message: string };
        };
        out.push(r.error ? { error: r.error.message } : { signature: r.result! });
      }
      return out;
    },
    drop: () => void proxy.held.splice(0),
    close: async () => undefined,
  };

  async function answer(req: RpcRequest): Promise<unknown> {
    if (req.method !== 'sendTransaction') return call(target, req);
    const wire = String(req.params?.[0]);
    const ours = proxy.only.size === 0 || names(wire, proxy.only);
    const skipPreflight = (req.params?.[1] as { skipPreflight?: boolean } | undefined)?.skipPreflight === true;
    if (ours && proxy.beforeSend) await proxy.beforeSend(wire);
    if (ours && skipPreflight) proxy.unsimulated.push(firstSignature(wire));
    if (!proxy.holding || !ours) return call(target, req);
    if (skipPreflight) return hold(req, wire);
    const sim = (await call(target, {
      jsonrpc: '2.0',
      id: req.id,
      method: 'simulateTransaction',
      params: [wire, { encoding: 'base64', sigVerify: true, commitment: 'processed' }],
    })) as { result?: { value: { err: unknown } }; error?: unknown };
    // A preflight that fails is the node's own answer: the send goes through to get it.
    if (!sim.result || sim.result.value.err !== null) {
      proxy.passedThrough.push(JSON.stringify(sim.error ?? sim.result?.value.err));
      return call(target, req);
    }
    return hold(req, wire);
  }

  function hold(req: RpcRequest, wire: string): unknown {
    proxy.held.push(wire);
    for (const w of waiters.splice(0))
      if (proxy.held.length >= w.count) w.resolve();
      else waiters.push(w);
    return { jsonrpc: '2.0', id: req.id, result: firstSignature(wire) };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
      const answered = Array.isArray(body) ? Promise.all(body.map(answer)) : answer(body);
      answered.then(
        (out) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out)),
        () => req.socket.destroy(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return proxy;
}
