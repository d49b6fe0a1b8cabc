/**
 * A TCP relay in front of an HTTP service whose target a test switches at any moment (a client
 * keeps one base URL while the service behind it restarts with other terms), and which can lose
 * answers: with `cutAnswers` above zero, the next connections' requests reach the service whole,
 * but the first bytes of the answer are dropped and the client's connection is reset (an answer
 * lost on the way after the payment was received). Counts what it cut.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface SwitchRelay {
  readonly url: string;
  /** The port new connections go to. */
  target: number;
  /** Answers still to lose (each on its own connection). */
  cutAnswers: number;
  /** Answers lost so far. */
  cut(): number;
  close(): Promise<void>;
}

export async function startSwitchRelay(target: number): Promise<SwitchRelay> {
  const sockets = new Set<Socket>();
  let cutSoFar = 0;
  const track = (s: Socket): Socket => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    return s;
  };
  const relay: SwitchRelay = {
    url: '',
    target,
    cutAnswers: 0,
    cut: () => cutSoFar,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((client) => {
    track(client);
    const upstream = track(connect(relay.target, '127.0.0.1'));
    let cutThis = false;
    client.on('data', (chunk) => {
      if (!cutThis && relay.cutAnswers > 0) {
        relay.cutAnswers--;
        cutThis = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (cutThis) {
        cutSoFar++;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  (relay as { url: string }).url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return relay;
}
