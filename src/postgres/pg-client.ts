/**
 * The one module that imports the PostgreSQL driver (`pg`, node-postgres, chosen by
 * bench/storage/pg-drivers.ts: docs/scaling.md#driver). Everything else speaks to the database through `PgClient`: queries with
 * positional parameters, transactions, LISTEN. Every failure of the database (refused, gone, too
 * slow, an error it answers with) becomes one ServiceError `database_unavailable`, whose message
 * never carries the URL, its password or a parameter value.
 */
import pg from 'pg';
import { ServiceError } from '../errors.ts';

/** A query that has not answered within this long is given up (and cancelled on the server). */
export const PG_QUERY_TIMEOUT_MS = 5_000;
/** How long opening a connection may take before the call fails. */
export const PG_CONNECT_TIMEOUT_MS = 5_000;
/** Connections per service instance: payment calls hold one for a few milliseconds. */
export const PG_MAX_CONNECTIONS = 8;
/** Wait before opening a dropped LISTEN connection again. */
export const LISTEN_RETRY_MS = 1_000;

/** A statement parameter; arrays go to `unnest($n::type[])` for one-statement batches. */
export type SqlParam = string | number | boolean | null | readonly string[] | readonly number[];
export type Row = Record<string, unknown>;

/** Runs one statement; `signal` gives up waiting (the caller left). */
export interface PgQuery {
  query<R extends Row = Row>(text: string, params?: readonly SqlParam[], signal?: AbortSignal): Promise<R[]>;
}

export interface PgClient extends PgQuery {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: PgQuery) => Promise<T>): Promise<T>;
  /** Calls `onPayload` for each NOTIFY on `channel`; resolves once listening; returns the unlisten. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** The URL with its password replaced by `***`: what logs and errors may show. */
  readonly redactedUrl: string;
  close(): Promise<void>;
}

export interface PgClientConfig {
  readonly url: string;
  readonly maxConnections?: number;
  readonly queryTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string;
}

/** `url` with any password replaced by `***` (an unparsable URL is hidden whole). */
export function redactDatabaseUrl(url: string): string {
  if (!URL.canParse(url)) return '(unparsable database URL)';
  const u = new URL(url);
  if (u.password) u.password = '***';
  u.searchParams.forEach((_, k) => {
    if (/pass/i.test(k)) u.searchParams.set(k, '***');
  });
  return u.toString();
}

/** The driver's error as a ServiceError naming only its code (SQLSTATE or socket error). */
export function databaseFault(err: unknown, what = 'the payment database failed'): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { code?: unknown; errno?: unknown };
  const reason = typeof e?.code === 'string' ? e.code : typeof e?.errno === 'string' ? e.errno : 'unknown';
  return new ServiceError('database_unavailable', `${what} (${reason}); nothing was charged; retry later`, { reason });
}

/** Waits for `query` at most `timeoutMs` or until `signal` aborts; either calls `abandon` (which drops the connection). */
function bounded<T>(query: Promise<T>, timeoutMs: number, abandon: () => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = (why: string): void => {
      abandon();
      reject(new ServiceError('database_unavailable', `the payment database ${why}; nothing was charged; retry later`, { reason: 'timeout' }));
    };
    const timer = setTimeout(() => stop(`did not answer within ${timeoutMs} ms`), timeoutMs);
    const onAbort = (): void => stop('call was abandoned (the caller left)');
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    query.then(
      (value) => {
        settle();
        resolve(value);
      },
      (err: unknown) => {
        settle();
        reject(databaseFault(err));
      },
    );
    if (signal?.aborted) onAbort();
  });
}

/** int8 (our expiry times in ms, ledger indexes) as JavaScript numbers: they are far below 2^53. */
const INT8_OID = 20;
const TYPES = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format))) as never };

/** One statement on `client`; without parameters the simple protocol, so a file of several statements runs. */
function queryOn(client: pg.PoolClient | pg.Client, timeoutMs: number, onAbandon: () => void): PgQuery['query'] {
  return <R extends Row>(text: string, params: readonly SqlParam[] = [], signal?: AbortSignal) => {
    const q = params.length === 0 ? client.query(text) : client.query(text, params as SqlParam[]);
    return bounded(q, timeoutMs, onAbandon, signal).then((r) => (Array.isArray(r) ? (r.at(-1)?.rows ?? []) : r.rows) as R[]);
  };
}

/** Opens a pool of at most `maxConnections` (connections open lazily, on first use). */
export function createPgClient(config: PgClientConfig): PgClient {
  const timeoutMs = config.queryTimeoutMs ?? PG_QUERY_TIMEOUT_MS;
  const options: pg.PoolConfig = {
    connectionString: config.url,
    max: config.maxConnections ?? PG_MAX_CONNECTIONS,
    connectionTimeoutMillis: config.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
    application_name: config.applicationName ?? 'solana-x402-intel',
    types: TYPES,
  };
  const pool = new pg.Pool(options);
  // An idle connection the server dropped (a restart) errors here; the pool replaces it on next use.
  pool.on('error', () => undefined);
  const connect = (): Promise<pg.PoolClient> => pool.connect().catch((err: unknown) => Promise.reject(databaseFault(err)));

  /** Runs `work` on one connection; a connection given up on (time-out, abort) is dropped, not reused. */
  async function withClient<T>(work: (run: PgQuery['query']) => Promise<T>): Promise<T> {
    const client = await connect();
    let broken: Error | undefined;
    // A connection lost while checked out errors here too (its query rejects as well): not reused.
    const onError = (err: Error): void => {
      broken ??= err;
    };
    client.on('error', onError);
    try {
      return await work(queryOn(client, timeoutMs, () => (broken ??= new Error('abandoned'))));
    } finally {
      client.off('error', onError);
      // A dropped connection may still report its socket's end: nobody is left to hear it.
      if (broken) client.on('error', () => undefined);
      client.release(broken);
    }
  }

  return {
    redactedUrl: redactDatabaseUrl(config.url),
    query: (text, params, signal) => withClient((run) => run(text, params, signal)),
    transaction: (work) =>
      withClient(async (run) => {
        await run('begin');
        try {
          const result = await work({ query: run });
          await run('commit');
          return result;
        } catch (err) {
          await run('rollback').catch(() => undefined);
          throw databaseFault(err);
        }
      }),
    listen: (channel, onPayload) => listenOn(options, channel, onPayload),
    close: () => pool.end(),
  };
}

/** LISTEN on a connection of its own, opened again (after LISTEN_RETRY_MS) whenever it drops. */
async function listenOn(options: pg.ClientConfig, channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
  let closed = false;
  let client: pg.Client | null = null;
  // Reopened only once it has listened: a first open that fails fails the caller instead.
  const open = async (): Promise<void> => {
    const c = new pg.Client(options);
    c.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    c.on('error', () => {
      c.end().catch(() => undefined);
      if (!closed && client === c) reopenLater();
    });
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      c.end().catch(() => undefined);
      throw err;
    }
    client = c;
  };
  // Tried again until it listens: the database may be away for longer than one retry.
  const reopenLater = (): void => {
    setTimeout(() => {
      if (!closed) open().catch(reopenLater);
    }, LISTEN_RETRY_MS).unref();
  };
  await open().catch((err: unknown) => Promise.reject(databaseFault(err)));
  return async () => {
    closed = true;
    await client?.end().catch(() => undefined);
  };
}
