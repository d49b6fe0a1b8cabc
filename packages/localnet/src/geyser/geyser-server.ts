/**
 * The localnet's Yellowstone Geyser gRPC server (plaintext h2c, optional `x-token`), fed by the
 * chain's events. It serves what the service's Geyser client uses against mainnet providers:
 * Subscribe (slots, transactions, transactionsStatus, blocksMeta, commitment, ping/pong, from_slot
 * replay) and the unary Ping, GetSlot, GetBlockHeight, GetLatestBlockhash, IsBlockhashValid,
 * GetVersion, SubscribeReplayInfo.
 */
import { Metadata, Server, ServerCredentials, status as GrpcStatus, type ServerDuplexStream } from '@grpc/grpc-js';
import { compileFilters, GeyserFilterError, wantsTransactions } from './geyser-filters.ts';
import { buildBlockMetaUpdate, buildTransactionStatusUpdate, buildTransactionUpdate } from './geyser-messages.ts';
import { encode } from './geyser-proto.ts';
import { toStatus, unaryHandlers } from './geyser-unary.ts';
import { ReplayLog, type ChainEvent } from './geyser-replay-log.ts';
import { GEYSER_SERVICE, type DecodedSubscribeRequest } from './geyser-service.ts';
import { Subscription, type SubscriptionCounters, type TransactionPayloads } from './geyser-subscription.ts';
import type { BlockMetaEvent, ChainHeadReader, ExecutedTransaction, LocalChainEvents, SlotEvent } from '../chain/types.ts';

/** Yellowstone servers ping every 15 s so idle streams survive proxies and load balancers. */
export const GEYSER_PING_INTERVAL_MS = 15_000;
/** Bytes a stream may have in flight before it is considered too slow and closed. */
export const GEYSER_MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** Slots a confirmed/finalized stream may hold back; finalization lags ~32 slots on Solana. */
export const GEYSER_MAX_BUFFERED_SLOTS = 256;
/** from_slot replay window: ~60 s of 400 ms slots. */
export const GEYSER_REPLAY_SLOTS = 150;
/** Hard cap on replay-log events whatever the traffic. */
export const GEYSER_REPLAY_MAX_EVENTS = 100_000;
/** Grace for in-flight calls on close before connections are cut. */
const SHUTDOWN_GRACE_MS = 1_000;

export interface GeyserServerConfig {
  readonly events: LocalChainEvents;
  readonly head: ChainHeadReader;
  readonly host: string;
  /** 0 = ephemeral. */
  readonly port: number;
  /** When set, every call must carry this `x-token` metadata or gets UNAUTHENTICATED. */
  readonly xToken?: string;
  readonly pingIntervalMs?: number;
  readonly maxQueuedBytes?: number;
}

/** Counters for tests and benchmarks. */
export interface GeyserServerStats extends Readonly<SubscriptionCounters> {
  readonly subscribers: number;
}

export interface GeyserServer {
  /** `http://host:port`, the endpoint form the official client needs. */
  readonly url: string;
  readonly port: number;
  stats(): GeyserServerStats;
  close(): Promise<void>;
}

/** Starts the server and subscribes it to the chain's events. */
export async function startGeyserServer(config: GeyserServerConfig): Promise<GeyserServer> {
  const counters: SubscriptionCounters = { updatesSent: 0, bytesSent: 0, slowSubscribersClosed: 0, bufferedSlotsDropped: 0 };
  const subscriptions = new Set<Subscription>();
  const calls = new Set<ServerDuplexStream<DecodedSubscribeRequest, Buffer>>();
  const replay = new ReplayLog({ maxSlots: GEYSER_REPLAY_SLOTS, maxEvents: GEYSER_REPLAY_MAX_EVENTS });
  const limits = { maxQueuedBytes: config.maxQueuedBytes ?? GEYSER_MAX_QUEUED_BYTES, maxBufferedSlots: GEYSER_MAX_BUFFERED_SLOTS };

  const dispatch = (event: ChainEvent, targets: Iterable<Subscription>): void => {
    try {
      dispatchEvent(
        event,
        [...targets].filter((sub) => !sub.closed),
      );
    } catch (error) {
      // A malformed chain event must not take the chain's emitter down; it is a chain bug to fix.
      console.error(`localnet geyser: cannot stream ${event.kind} of slot ${event.value.slot}:`, error);
    }
  };
  const onEvent = (event: ChainEvent): void => {
    replay.record(event);
    dispatch(event, subscriptions);
  };
  const listeners = {
    transaction: (value: ExecutedTransaction) => onEvent({ kind: 'transaction', value }),
    blockMeta: (value: BlockMetaEvent) => onEvent({ kind: 'blockMeta', value }),
    slot: (value: SlotEvent) => onEvent({ kind: 'slot', value }),
  };

  const authorized = (metadata: Metadata): boolean => config.xToken === undefined || metadata.get('x-token')[0]?.toString() === config.xToken;

  const subscribe = (call: ServerDuplexStream<DecodedSubscribeRequest, Buffer>): void => {
    if (!authorized(call.metadata)) {
      call.emit('error', { code: GrpcStatus.UNAUTHENTICATED, details: 'invalid or missing x-token' });
      return;
    }
    // The official client waits for response headers before its first read; send them now.
    call.sendMetadata(new Metadata());
    const subscription = new Subscription(
      {
        send: (update, flushed) => void call.write(update, flushed),
        exhausted: (details) => {
          finish();
          call.emit('error', { code: GrpcStatus.RESOURCE_EXHAUSTED, details });
        },
      },
      limits,
      counters,
    );
    const finish = (): void => {
      subscription.markClosed();
      subscriptions.delete(subscription);
      calls.delete(call);
    };
    subscriptions.add(subscription);
    calls.add(call);
    call.on('data', (request: DecodedSubscribeRequest) => {
      try {
        if (request.ping !== null) return subscription.pong(request.ping);
        subscription.setFilters(compileFilters(request));
        // Any request may carry from_slot (the client opens with an empty request, then sends ours).
        if (request.fromSlot !== null) replayFrom(request.fromSlot, subscription);
      } catch (error) {
        finish();
        call.emit('error', toStatus(error));
      }
    });
    // A client that half-closes its request stream ends the subscription, as Yellowstone does.
    call.on('end', () => {
      finish();
      call.end();
    });
    call.on('cancelled', finish);
    call.on('close', finish);
  };

  const replayFrom = (fromSlot: bigint, subscription: Subscription): void => {
    const firstAvailable = replay.firstAvailable();
    if (firstAvailable === null || fromSlot < firstAvailable) {
      throw new GeyserFilterError('invalid_argument', `from_slot ${fromSlot} is not available; first available slot is ${firstAvailable ?? 'none'}`);
    }
    for (const event of replay.since(fromSlot)) dispatch(event, [subscription]);
  };

  const server = new Server();
  server.addService(GEYSER_SERVICE, {
    Subscribe: subscribe,
    ...unaryHandlers(config.head, authorized, replay),
  });
  const port = await bind(server, config.host, config.port);
  config.events.on('transaction', listeners.transaction);
  config.events.on('blockMeta', listeners.blockMeta);
  config.events.on('slot', listeners.slot);
  const pingTimer = setInterval(() => {
    for (const subscription of subscriptions) subscription.ping();
  }, config.pingIntervalMs ?? GEYSER_PING_INTERVAL_MS);
  pingTimer.unref();

  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    port,
    stats: () => ({ ...counters, subscribers: subscriptions.size }),
    close: async () => {
      clearInterval(pingTimer);
      config.events.off('transaction', listeners.transaction);
      config.events.off('blockMeta', listeners.blockMeta);
      config.events.off('slot', listeners.slot);
      for (const call of calls) call.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'localnet geyser shutting down' });
      await shutdown(server);
    },
  };
}

/** Fans one event out to subscriptions, encoding each payload at most once. */
function dispatchEvent(event: ChainEvent, targets: readonly Subscription[]): void {
  if (event.kind === 'slot') {
    for (const sub of targets) sub.onSlot(event.value);
  } else if (event.kind === 'blockMeta') {
    const payload = memo(() => encode.blockMeta(buildBlockMetaUpdate(event.value)));
    for (const sub of targets) sub.onBlockMeta(event.value, payload);
  } else {
    const tx = event.value;
    const payloads: TransactionPayloads = {
      transaction: memo(() => encode.transaction(buildTransactionUpdate(tx))),
      transactionStatus: memo(() => encode.transactionStatus(buildTransactionStatusUpdate(tx))),
    };
    for (const sub of targets) if (wantsTransactions(sub.filters)) sub.onTransaction(tx, payloads);
  }
}

function memo<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
}

function bind(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, SHUTDOWN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
