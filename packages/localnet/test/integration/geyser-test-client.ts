/**
 * Helpers around the official Yellowstone client for the localnet Geyser tests: connect, open a
 * stream with its error listener attached before the first write, and await updates.
 */
import * as yellowstone from '@triton-one/yellowstone-grpc';
import { SubscribeRequest, type ClientDuplexStream, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';

/**
 * The package's types describe its CommonJS build (default export = `module.exports.default`)
 * while ESM loaders hand us the ESM build (default export = the class); accept either.
 */
type ClientClass = typeof yellowstone.default.default;
const loaded = yellowstone as unknown as { default: ClientClass | { default: ClientClass } };
const Client: ClientClass = typeof loaded.default === 'function' ? loaded.default : loaded.default.default;
export type GeyserClient = InstanceType<ClientClass>;

type DeepPartial<T> = T extends Uint8Array | Date | string | number | boolean | undefined
  ? T
  : T extends (infer U)[]
    ? DeepPartial<U>[]
    : { [K in keyof T]?: DeepPartial<T[K]> };
/** A request as tests write it; `SubscribeRequest.fromPartial` fills the rest. */
export type PartialRequest = DeepPartial<SubscribeRequest>;

export interface OpenStream {
  readonly stream: ClientDuplexStream;
  readonly updates: SubscribeUpdate[];
  /** Resolves once `predicate` holds over the updates received so far (or rejects after `timeoutMs`). */
  until(predicate: (updates: readonly SubscribeUpdate[]) => boolean, timeoutMs?: number): Promise<readonly SubscribeUpdate[]>;
  /** Sends a (replacement) request built with `SubscribeRequest.fromPartial`. */
  send(request: PartialRequest): Promise<void>;
  readonly error: () => Error | undefined;
  close(): void;
}

/** A connected official client. */
export async function connectClient(url: string, xToken?: string): Promise<GeyserClient> {
  const client = new Client(url, xToken, undefined);
  await client.connect();
  return client;
}

/** Opens a Subscribe stream and sends `request` on it. */
export async function openStream(client: GeyserClient, request: PartialRequest): Promise<OpenStream> {
  const stream = await client.subscribe();
  const updates: SubscribeUpdate[] = [];
  let failure: Error | undefined;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const waiter of waiters) waiter();
  };
  stream.on('error', (error: Error) => {
    // The client puts the gRPC status (code and details) in `cause`; keep it in the message.
    failure = new Error(`${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`);
    wake();
  });
  stream.on('data', (update: SubscribeUpdate) => {
    updates.push(update);
    wake();
  });
  const send = (partial: PartialRequest): Promise<void> =>
    new Promise((resolve, reject) => {
      stream.write(SubscribeRequest.fromPartial(partial as SubscribeRequest), (error?: Error | null) => (error ? reject(error) : resolve()));
    });
  await send(request);
  return {
    stream,
    updates,
    send,
    error: () => failure,
    close: () => stream.destroy(),
    until: (predicate, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (predicate(updates)) {
            cleanup();
            resolve(updates);
          } else if (failure !== undefined) {
            cleanup();
            reject(failure);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms with ${updates.length} updates`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

/** Waits until the server has applied a request (it is applied on receipt; a ping round trip proves it). */
export async function settle(open: OpenStream, id: number): Promise<void> {
  await open.send({ ping: { id } });
  await open.until((updates) => updates.some((u) => u.pong?.id === id));
}
