/**
 * A loopback HTTP server standing in for one market source in contract tests: routes by path,
 * scripted answers (status, JSON body, headers, delay), every request recorded so tests can count
 * upstream calls (single-flight) and check the headers and query the clients send.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

export interface ScriptedReply {
  readonly status?: number;
  readonly body?: unknown;
  /** Raw text instead of JSON. */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
  /** Never answers (the client's timeout must fire). */
  readonly hang?: boolean;
}

export interface SeenRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** `Date.now()` on arrival: a test that fakes Date measures waits on its own clock. */
  readonly atMs: number;
}

export interface FixtureUpstream {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Answers for `path`, used in order; the last one repeats. */
  route(path: string, ...replies: ScriptedReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

/** Reads a fixture from test/fixtures/market/. */
export function marketFixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/market/${name}`, import.meta.url), 'utf8')) as unknown;
}

/** Starts the server on an ephemeral loopback port. */
export async function startFixtureUpstream(): Promise<FixtureUpstream> {
  const routes = new Map<string, ScriptedReply[]>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers, atMs: Date.now() });
    const script = routes.get(url.pathname);
    const reply = script === undefined ? { status: 404, body: { error: 'no route in fixture server' } } : script.length > 1 ? script.shift()! : script[0]!;
    if (reply.hang) return;
    const send = () => {
      const text = reply.text ?? JSON.stringify(reply.body ?? null);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(path, ...replies) {
      routes.set(path, [...replies]);
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
