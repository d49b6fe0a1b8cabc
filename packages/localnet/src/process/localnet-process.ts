/**
 * The embedded localnet as a process of its own, started by the service (spawn-localnet.ts), so
 * the chain's work (the block producer's slots, LiteSVM, EDR, the world's start) runs beside the
 * service's event loop instead of on it: a bot measuring our 402 measures us, not the chain.
 *
 * It lives as long as the service: it stops when told (`close`, after the service has drained),
 * and when the IPC channel drops, which is how it learns the service died (even by SIGKILL). It
 * saves its state either way. Ctrl-C in a terminal signals the whole process group; the service
 * decides when the localnet stops (after its in-flight paid calls, which need the chain), so
 * SIGINT is not ours to act on. SIGTERM sent to this process alone stops it.
 */
import type { Localnet } from '../start-localnet.ts';
import { startLocalnet } from '../start-localnet.ts';
import { localnetUpstreams } from '../localnet-upstreams.ts';
import type { LocalnetMessage, ServiceMessage } from './localnet-protocol.ts';

/** How long the close (surfaces, the last save) may take before the process exits anyway. */
const CLOSE_DEADLINE_MS = 10_000;

let net: Localnet | null = null;
let closing = false;

function send(message: LocalnetMessage): void {
  if (process.connected) process.send?.(message);
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function closeAndExit(code: number): Promise<void> {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(code === 0 ? 1 : code), CLOSE_DEADLINE_MS).unref();
  try {
    await net?.close();
  } catch (err) {
    console.error(`localnet: close failed: ${messageOf(err)}`);
  }
  process.exit(code);
}

async function onMessage(message: ServiceMessage): Promise<void> {
  if (message.type === 'start') {
    try {
      net = await startLocalnet({
        ...message.options,
        rpcPort: 0,
        geyserPort: 0,
        marketPort: 0,
        progress: (line) => send({ type: 'progress', line }),
      });
    } catch (err) {
      send({ type: 'failed', message: messageOf(err) });
      // The channel is flushed before the exit: the service reads why before it sees the exit.
      setImmediate(() => process.exit(1));
      return;
    }
    const { prepareAccounts: _, ...upstreams } = localnetUpstreams(net);
    send({
      type: 'ready',
      upstreams,
      urls: { ...net.urls },
      stablecoinMint: net.stablecoinMint,
      state: net.state ? { dir: net.state.dir, restored: net.state.restored } : null,
    });
  } else if (message.type === 'prepare') {
    try {
      if (!net) throw new Error('prepare before the localnet started');
      await net.prepareServiceAccounts(message.accounts);
      // The service took its data directory: from now on the state is written.
      net.state?.begin();
      send({ type: 'prepared', error: null });
    } catch (err) {
      send({ type: 'prepared', error: messageOf(err) });
    }
  } else if (message.type === 'close') {
    await closeAndExit(0);
  }
}

if (!process.send) {
  console.error('localnet-process: started by the service, over an IPC channel (npm run localnet runs the localnet alone)');
  process.exit(2);
}
process.on('SIGINT', () => {});
process.on('SIGTERM', () => void closeAndExit(0));
process.on('disconnect', () => void closeAndExit(0));
process.on('message', (message: ServiceMessage) => void onMessage(message));
