/**
 * A TCP relay in front of an HTTP service, as a load balancer stands in front of one: a client keeps
 * its base URL and its keep-alive connection while the service behind it is switched (a restart
 * with other terms); a request goes to the service the relay points at when the request starts. A
 * connection's service that closes between requests is replaced at the next one; one that closes
 * while a request waits for its answer cuts the client's connection (the answer is lost). It can
 * also lose answers on purpose: with `cutAnswers` above zero, the next requests reach the service
 * whole, but the first bytes of the answer are dropped and the client's connection is reset (an
 * answer lost on the way after the payment was received). Counts what it cut.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface SwitchRelay {
  readonly url: string;
  /** Sends each request from now on to the service on `port`. */
  switchTo(port: number): void;
  /** Answers still to lose (each cuts its connection). */
  cutAnswers: number;
  /** Answers lost so far. */
  cut(): number;
  close(): Promise<void>;
}

export async function startSwitchRelay(target: number): Promise<SwitchRelay> {
  const sockets = new Set<Socket>();
  let cutSoFar = 0;
  let port = target;
  const track = (s: Socket): Socket => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    return s;
  };
  const relay: SwitchRelay = {
    url: '',
    switchTo(next) {
      port = next;
    },
    cutAnswers: 0,
    cut: () => cutSoFar,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer((client) => {
    track(client);
    let upstream: { socket: Socket; port: number } | null = null;
    let waiting = false;
    let cutThis = false;
    const open = (to: number): Socket => {
      const socket = track(connect(to, '127.0.0.1'));
      socket.on('data', (chunk) => {
        waiting = false;
        if (cutThis) {
          cutSoFar++;
          client.resetAndDestroy();
          socket.destroy();
          return;
        }
        client.write(chunk);
      });
      socket.on('close', () => {
        if (upstream?.socket !== socket) return;
        upstream = null;
        if (waiting) client.destroy();
      });
      return socket;
    };
    client.on('data', (chunk) => {
      if (!waiting && upstream?.port !== port) {
        upstream?.socket.destroy();
        upstream = { socket: open(port), port };
      }
      if (!waiting) {
        cutThis = relay.cutAnswers > 0;
        if (cutThis) relay.cutAnswers--;
      }
      waiting = true;
      upstream?.socket.write(chunk);
    });
    client.on('close', () => upstream?.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  (relay as { url: string }).url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return relay;
}
