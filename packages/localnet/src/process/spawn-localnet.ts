/**
 * The service's side of its localnet process (localnet-process.ts): starts it, waits until it
 * serves, relays its progress lines, asks it to ready the service's accounts, tells when it dies,
 * and stops it. Imports only Node: the service loads this, never the chain itself, so none of
 * LiteSVM, EDR or the gRPC server sits in the service's heap or runs on its event loop.
 *
 * The process runs from the sources through tsx when this module does (`npm run dev`, tests),
 * and from `localnet-process.js` beside the bundle once built (scripts/build-server.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LocalnetMessage, LocalnetProcessOptions, LocalnetReady, ServiceMessage } from './localnet-protocol.ts';
import type { ServiceAccounts } from '../service-accounts.ts';

export type { LocalnetProcessOptions, LocalnetReady } from './localnet-protocol.ts';

/** Start-up on a loaded 2-core machine (the world, the EVM) can take tens of seconds. */
export const LOCALNET_START_TIMEOUT_MS = 120_000;
/** How long a close (its surfaces, the last save) may take before the process is killed. */
export const LOCALNET_CLOSE_TIMEOUT_MS = 15_000;
/** How long readying the service's accounts may take. */
const PREPARE_TIMEOUT_MS = 30_000;

/** How the process ended. */
export interface LocalnetExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running localnet process. */
export interface LocalnetChild extends Omit<LocalnetReady, 'type'> {
  readonly pid: number;
  /** Funds the service's fee payer and creates payTo's stablecoin account; from then on the state is saved. */
  prepareAccounts(accounts: ServiceAccounts): Promise<void>;
  /** Stops it (its state saved); resolves once it has exited. */
  close(): Promise<void>;
  /** Resolves when the process exits, for whatever reason. */
  readonly exited: Promise<LocalnetExit>;
}

function entry(): { readonly file: string; readonly execArgv: readonly string[] } {
  const fromSources = import.meta.url.endsWith('.ts');
  if (fromSources) return { file: fileURLToPath(new URL('./localnet-process.ts', import.meta.url)), execArgv: ['--import', import.meta.resolve('tsx')] };
  return { file: fileURLToPath(new URL('./localnet-process.js', import.meta.url)), execArgv: ['--enable-source-maps'] };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // Lost to the timeout, it may still reject (the process is killed then): nobody waits for that.
  promise.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function nextMessage<T extends LocalnetMessage['type']>(
  child: ChildProcess,
  types: readonly T[],
  exited: Promise<LocalnetExit>,
): Promise<Extract<LocalnetMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: LocalnetMessage) => {
      if (!(types as readonly string[]).includes(message.type)) return;
      child.off('message', onMessage);
      resolve(message as Extract<LocalnetMessage, { type: T }>);
    };
    child.on('message', onMessage);
    void exited.then(({ code, signal }) => {
      child.off('message', onMessage);
      reject(new Error(`the localnet process exited (${signal ?? `code ${code}`})`));
    });
  });
}

/** Starts the localnet process and resolves once it serves; `onProgress` hears its start's steps. */
export async function spawnLocalnet(options: LocalnetProcessOptions, onProgress: (line: string) => void): Promise<LocalnetChild> {
  const { file, execArgv } = entry();
  // stdout and stderr are the service's own: the localnet writes only faults there.
  const child = fork(file, [], { execArgv: [...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  const exited = new Promise<LocalnetExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const send = (message: ServiceMessage) => child.send(message);
  child.on('message', (message: LocalnetMessage) => {
    if (message.type === 'progress') onProgress(message.line);
  });
  try {
    const started = nextMessage(child, ['ready', 'failed'], exited);
    send({ type: 'start', options });
    const answer = await withTimeout(started, LOCALNET_START_TIMEOUT_MS, 'the localnet start');
    if (answer.type === 'failed') throw new Error(answer.message);
    const { type: _, ...ready } = answer;
    return {
      ...ready,
      pid: child.pid!,
      exited,
      async prepareAccounts(accounts) {
        const prepared = nextMessage(child, ['prepared'], exited);
        send({ type: 'prepare', accounts });
        const { error } = await withTimeout(prepared, PREPARE_TIMEOUT_MS, "readying the service's localnet accounts");
        if (error !== null) throw new Error(error);
      },
      async close() {
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (child.connected) send({ type: 'close' });
        const timer = setTimeout(() => child.kill('SIGKILL'), LOCALNET_CLOSE_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
}
