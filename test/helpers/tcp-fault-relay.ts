/**
 * A TCP relay in front of an upstream that speaks something other than HTTP/1 (the Geyser gRPC
 * port: HTTP/2), whose behaviour a test switches at any moment:
 * - `pass`: bytes flow both ways (bytes held earlier are delivered first, in order);
 * - `hold`: every byte is held in both directions, as by a frozen peer (`kill -STOP`);
 * - `slow`: every chunk is delivered after a delay;
 * - `reset`: open connections are destroyed and new ones are dropped at once;
 * - `garbage`: bytes that are not the protocol are written to every client, then it is cut off.
 * Counts what it saw, so a test knows the fault was actually hit.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type RelayMode = 'pass' | 'hold' | 'slow' | 'reset' | 'garbage';

export interface TcpFaultRelay {
  readonly url: string;
  mode: RelayMode;
  /** Bytes the clients sent while held. */
  heldFromClient(): number;
  /** Connections met by a fault (reset or garbage, on switching or on arrival). */
  faulted(): number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

const SLOW_MS = 300;
/** Not an HTTP/2 frame: a client must treat the connection as broken. */
const GARBAGE = Buffer.from('HTTP/1.1 500 upstream exploded\r\n\r\n\x00\xff\x00\xff not a frame');

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
}

/** Starts a relay to 127.0.0.1:`targetPort` in `initial` mode (default `pass`). */
export async function startTcpFaultRelay(targetPort: number, initial: RelayMode = 'pass'): Promise<TcpFaultRelay> {
  let mode: RelayMode = initial;
  let fromClientHeld = 0;
  let faulted = 0;
  let accepted = 0;
  const held: Array<() => void> = [];
  const pairs = new Set<Pair>();
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };

  const breakPair = (pair: Pair, how: 'reset' | 'garbage'): void => {
    faulted++;
    if (how === 'garbage') pair.client.end(GARBAGE);
    else pair.client.resetAndDestroy();
    pair.upstream.destroy();
  };
  const forward = (from: Socket, to: Socket, fromClient: boolean): void => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'hold') {
        if (fromClient) fromClientHeld += chunk.length;
        held.push(() => to.write(chunk));
      } else if (mode === 'slow') setTimeout(() => to.writable && to.write(chunk), SLOW_MS);
      else if (mode === 'pass') to.write(chunk);
    });
  };
  const server: Server = createServer((client) => {
    accepted++;
    track(client);
    if (mode === 'reset' || mode === 'garbage') {
      faulted++;
      if (mode === 'garbage') client.end(GARBAGE);
      else client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    const pair = { client, upstream };
    pairs.add(pair);
    forward(client, upstream, true);
    forward(upstream, client, false);
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get mode() {
      return mode;
    },
    set mode(next: RelayMode) {
      mode = next;
      if (next === 'reset' || next === 'garbage') {
        held.length = 0;
        for (const pair of pairs) breakPair(pair, next);
      }
      if (next === 'pass') for (const send of held.splice(0)) send();
    },
    heldFromClient: () => fromClientHeld,
    faulted: () => faulted,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
