/**
 * The client library's HTTP: one GET on a keep-alive connection of `node:http` (or `node:https`),
 * the answer read whole as bytes (a receipt covers the exact bytes). Not `fetch`: undici's fetch
 * spent about 1.7 ms of CPU per call in the channel bench, as much as the service, where this path
 * spends a fraction of that, and a bot's calls are mostly this trip. A failure to connect or a
 * deadline passed is thrown as Node's own error (its `code`, or a `TimeoutError`), never a 4xx.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** An answer read whole: status, lower-cased headers (a repeated one joined by ', '), exact body bytes. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
}

/** A keep-alive GET client of one service. */
export interface ClientHttp {
  get(pathAndQuery: string, headers: Readonly<Record<string, string>>, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer>;
  /** Closes the kept connections. */
  close(): void;
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function timeoutError(ms: number): Error {
  const err = new Error(`no answer within ${ms} ms`);
  err.name = 'TimeoutError';
  return err;
}

/** A client of the service at `base` (`http(s)://host[:port][/prefix]`, no trailing slash). */
export function createClientHttp(base: string): ClientHttp {
  const url = new URL(base);
  const secure = url.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = url.pathname.replace(/\/+$/, '');
  const target = { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (secure ? 443 : 80), agent };

  function get(pathAndQuery: string, headers: Readonly<Record<string, string>>, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const req = send({ ...target, method: 'GET', path: `${prefix}${pathAndQuery}`, headers: { accept: 'application/json', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          done();
          resolve({ status: res.statusCode ?? 0, headers: headersOf(res), bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        });
      });
      const timer = setTimeout(() => req.destroy(timeoutError(timeoutMs)), timeoutMs);
      const onAbort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      function fail(err: Error): void {
        done();
        reject(err);
      }
      req.on('error', fail);
      req.end();
    });
  }

  return { get, close: () => agent.destroy() };
}
