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

/** Binds `host:port` once, exclusively, and closes it: the reason it failed, or null when it bound. */
function probe(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const reason = REASONS[err.code ?? ''];
      resolve(reason ? reason(host, port) : `cannot listen on ${host}:${port} (${err.code ?? err.message})`);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** The reason `host:port` cannot be bound, as a sentence. */
export async function listenFailure(host: string, port: number): Promise<string> {
  // Bound after all (the other listener just went away): the failure is not explained.
  return (await probe(host, port)) ?? `cannot listen on ${host}:${port}`;
}

/**
 * Why `host:port` cannot be bound now, or null when it can: asked at start before anything is
 * built or written, so a second copy on a busy port says so at once. The listen itself still
 * decides (another process may take the port in between) and says the same.
 */
export function portUnavailable(host: string, port: number): Promise<string | null> {
  return port === 0 ? Promise.resolve(null) : probe(host, port);
}
