/**
 * Why a listener could not bind, in words a person acts on. uWS reports a failed listen as
 * `false` with no reason, so the reason is asked of the operating system by binding the same
 * address once more with node:net, exclusively, and closing it at once.
 */
import { createServer } from 'node:net';

const REASONS: Readonly<Record<string, (host: string, port: number) => string>> = {
  EADDRINUSE: (_host, port) => `port ${port} is in use (another process listens on it; is the service already running?)`,
  EACCES: (_host, port) => `port ${port} needs privileges this process does not have (choose a port above 1023)`,
  EADDRNOTAVAIL: (host) => `address ${host} is not an address of this machine`,
};

/** The reason `host:port` cannot be bound, as a sentence. */
export function listenFailure(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const reason = REASONS[err.code ?? ''];
      resolve(reason ? reason(host, port) : `cannot listen on ${host}:${port} (${err.code ?? err.message})`);
    });
    // Bound after all (the other listener just went away): the failure is not explained.
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(`cannot listen on ${host}:${port}`)));
  });
}
