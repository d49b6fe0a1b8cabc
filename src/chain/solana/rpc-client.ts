/**
 * The Solana JSON-RPC client of the service: kit's RPC over the keep-alive transport of
 * rpc-http-transport.ts. It exposes the few calls the service makes as plain data (numbers,
 * strings, bytes). Transport faults become ServiceError `upstream_unavailable` /
 * `upstream_timeout`; JSON-RPC errors of the write paths (simulate, send) are returned as data
 * because they judge the transaction, not the upstream.
 */
import {
  createSolanaRpcFromTransport,
  isSolanaError,
  type Rpc,
  type SolanaRpcApi,
  type Address,
  type Base64EncodedWireTransaction,
  type Commitment,
  type Signature,
} from '@solana/kit';
import { ServiceError } from '../../errors.ts';
import { createRpcHttpPost, createRpcHttpTransport, type RpcHttpPost } from './rpc-http-transport.ts';

/** Default per-call time limit. */
export const RPC_TIMEOUT_MS = 10_000;
/** JSON-RPC error codes are -32768..-32000; kit reuses them as its error codes. */
const JSON_RPC_CODE_MIN = -32768;
const JSON_RPC_CODE_MAX = -32000;

export interface RpcClientConfig {
  readonly url: string;
  readonly timeoutMs?: number;
}

export type RpcCommitment = 'processed' | 'confirmed' | 'finalized';

/** A JSON-RPC error answer (not a transport fault). */
export interface RpcFailure {
  readonly ok: false;
  readonly code: number;
  readonly message: string;
}

export type SimulateOutcome =
  | {
      readonly ok: true;
      readonly err: unknown;
      readonly logs: readonly string[];
      /** The data of the accounts asked for, as the simulation left them (null: absent), in the order asked. */
      readonly accounts?: readonly (Uint8Array | null)[];
    }
  | RpcFailure;
export type SendOutcome = { readonly ok: true; readonly signature: string } | RpcFailure;

export interface SignatureStatus {
  readonly confirmationStatus: RpcCommitment | null;
  readonly err: unknown;
  readonly slot: number;
}

export interface EpochInfo {
  readonly epoch: number;
  readonly slotIndex: number;
  readonly slotsInEpoch: number;
  readonly absoluteSlot: number;
  readonly blockHeight: number;
}

export interface AccountInfo {
  readonly owner: string;
  readonly lamports: bigint;
  readonly data: Uint8Array;
}

export interface RpcClient {
  readonly url: string;
  getLatestBlockhash(signal?: AbortSignal): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  /** With `accounts`, the answer carries their data after the simulated transaction (same state, no extra request). */
  simulateTransaction(wireBase64: string, signal?: AbortSignal, accounts?: readonly string[]): Promise<SimulateOutcome>;
  /** `skipPreflight`: the node forwards it without simulating first (its outcome is known only once it lands). */
  sendTransaction(wireBase64: string, signal?: AbortSignal, options?: { readonly skipPreflight?: boolean }): Promise<SendOutcome>;
  /**
   * From the node's recent status cache (about two minutes of slots); `searchHistory` also searches
   * its ledger, for a signature that may have left the cache (slower: asked only where it decides).
   */
  getSignatureStatus(signature: string, signal?: AbortSignal, options?: { readonly searchHistory?: boolean }): Promise<SignatureStatus | null>;
  getEpochInfo(signal?: AbortSignal): Promise<EpochInfo>;
  getAccountInfo(address: string, signal?: AbortSignal): Promise<AccountInfo | null>;
}

/** JSON-safe copy of an RPC value (kit answers u64 fields as bigint). */
export function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
}

/** A u64/i64 field of an RPC answer (kit gives bigint) as a plain number; absent stays null. */
export function numberOrNull(v: bigint | number | null | undefined): number | null {
  return v === null || v === undefined ? null : Number(v);
}

function rpcFailureOf(err: unknown): RpcFailure | null {
  if (!isSolanaError(err)) return null;
  const code = (err.context as { __code?: number }).__code;
  if (typeof code !== 'number' || code < JSON_RPC_CODE_MIN || code > JSON_RPC_CODE_MAX) return null;
  return { ok: false, code, message: err.message };
}

/**
 * The shared call path of every RPC method group: kit's RPC object plus the time limit, abort and
 * fault mapping. Method groups live in `src/chain/rpc-*-methods.ts` files (the only other kit-RPC
 * importers) and take a transport, so each domain adds its calls without touching this file.
 */
export interface RpcTransport {
  readonly url: string;
  /** kit's RPC object (typed by kit; method groups call it through `call`). */
  readonly rpc: Rpc<SolanaRpcApi>;
  /** Runs one request with the time limit and the caller's signal; faults become ServiceErrors. */
  call<T>(what: string, signal: AbortSignal | undefined, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T>;
  /** Write paths: a JSON-RPC error is an answer about the transaction, returned as data. */
  judged<T>(what: string, signal: AbortSignal | undefined, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T | RpcFailure>;
  /** A raw JSON-RPC POST (text in, text out) on the same kept-alive connections, for JSON-RPC batches kit does not send. */
  readonly post: RpcHttpPost;
}

/**
 * Creates the transport; every call carries its own time limit and the caller's AbortSignal. `rpc`
 * is kit's RPC object to call through: by default over the keep-alive `node:http` transport
 * (rpc-http-transport.ts); bench/runtime/rpc-transport.ts and its test pass kit's default (fetch) to compare.
 */
export function createRpcTransport(config: RpcClientConfig, kitRpc?: Rpc<SolanaRpcApi>): RpcTransport {
  const post = createRpcHttpPost(config.url);
  const rpc = kitRpc ?? createSolanaRpcFromTransport(createRpcHttpTransport(post));
  const timeoutMs = config.timeoutMs ?? RPC_TIMEOUT_MS;

  async function call<T>(what: string, signal: AbortSignal | undefined, send: (abortSignal: AbortSignal) => Promise<T>, keepRpcErrors = false): Promise<T> {
    // One controller and one timer per request: AbortSignal.timeout + AbortSignal.any cost more CPU
    // than the rest of a small request's client side (measured, docs/benchmarks.md).
    const limit = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      limit.abort(new DOMException(`Solana RPC ${what} timed out`, 'TimeoutError'));
    }, timeoutMs);
    const onAbort = () => limit.abort(signal!.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await send(limit.signal);
    } catch (err) {
      const failure = rpcFailureOf(err);
      if (failure && keepRpcErrors) throw err;
      if (failure) throw new ServiceError('upstream_unavailable', `Solana RPC ${what} answered an error`, { upstream: 'solana-rpc', rpcCode: failure.code });
      if (timedOut) throw new ServiceError('upstream_timeout', `Solana RPC ${what} did not answer within ${timeoutMs} ms`);
      if (signal?.aborted) throw signal.reason ?? err;
      throw new ServiceError('upstream_unavailable', `Solana RPC ${what} failed`, { upstream: 'solana-rpc' });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Write paths: a JSON-RPC error is an answer about the transaction, returned as data. */
  async function judged<T>(what: string, signal: AbortSignal | undefined, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T | RpcFailure> {
    try {
      return await call(what, signal, send, true);
    } catch (err) {
      const failure = rpcFailureOf(err);
      if (failure) return failure;
      throw err;
    }
  }

  return { url: config.url, rpc, call: (what, signal, send) => call(what, signal, send), judged, post };
}

/** Creates the client over a transport (or a fresh one from config). */
export function createRpcClient(source: RpcClientConfig | RpcTransport): RpcClient {
  const transport = 'call' in source ? source : createRpcTransport(source);
  const { rpc, call, judged } = transport;
  const config = { url: transport.url };
  return {
    url: config.url,
    async getLatestBlockhash(signal) {
      const { value } = await call('getLatestBlockhash', signal, (s) => rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: s }));
      return { blockhash: value.blockhash, lastValidBlockHeight: Number(value.lastValidBlockHeight) };
    },
    async simulateTransaction(wireBase64, signal, accounts) {
      const asked = accounts?.length ? { accounts: { addresses: accounts as Address[], encoding: 'base64' as const } } : {};
      const out = await judged('simulateTransaction', signal, (s) =>
        rpc
          .simulateTransaction(wireBase64 as Base64EncodedWireTransaction, {
            encoding: 'base64',
            sigVerify: false,
            replaceRecentBlockhash: false,
            commitment: 'confirmed',
            ...asked,
          })
          .send({ abortSignal: s }),
      );
      if ('ok' in out) return out;
      const err = out.value.err === null ? null : jsonSafe(out.value.err);
      if (!accounts?.length) return { ok: true, err, logs: out.value.logs ?? [] };
      // kit types the answer by the config's literal shape; the accounts asked for come base64.
      const answered = (out.value as { accounts?: readonly ({ readonly data: readonly [string, string] } | null)[] | null }).accounts ?? [];
      const data = answered.map((a) => (a ? new Uint8Array(Buffer.from(a.data[0], 'base64')) : null));
      return { ok: true, err, logs: out.value.logs ?? [], accounts: data };
    },
    async sendTransaction(wireBase64, signal, options) {
      const skip = options?.skipPreflight ? { skipPreflight: true } : {};
      const out = await judged('sendTransaction', signal, (s) =>
        rpc
          .sendTransaction(wireBase64 as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed', ...skip })
          .send({ abortSignal: s }),
      );
      return typeof out === 'string' ? { ok: true, signature: out } : out;
    },
    async getSignatureStatus(signature, signal, options) {
      const config = options?.searchHistory ? { searchTransactionHistory: true } : undefined;
      const { value } = await call('getSignatureStatuses', signal, (s) => rpc.getSignatureStatuses([signature as Signature], config).send({ abortSignal: s }));
      const status = value[0];
      if (!status) return null;
      return {
        confirmationStatus: (status.confirmationStatus as Commitment | null) ?? null,
        err: status.err === null ? null : jsonSafe(status.err),
        slot: Number(status.slot),
      };
    },
    async getEpochInfo(signal) {
      const e = await call('getEpochInfo', signal, (s) => rpc.getEpochInfo({ commitment: 'confirmed' }).send({ abortSignal: s }));
      return {
        epoch: Number(e.epoch),
        slotIndex: Number(e.slotIndex),
        slotsInEpoch: Number(e.slotsInEpoch),
        absoluteSlot: Number(e.absoluteSlot),
        blockHeight: Number(e.blockHeight),
      };
    },
    async getAccountInfo(address, signal) {
      const { value } = await call('getAccountInfo', signal, (s) =>
        rpc.getAccountInfo(address as Address, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: s }),
      );
      if (!value) return null;
      return { owner: value.owner, lamports: BigInt(value.lamports), data: new Uint8Array(Buffer.from(value.data[0], 'base64')) };
    },
  };
}
