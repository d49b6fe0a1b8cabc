/**
 * RPC reads of the token analysis, sent as JSON-RPC batches (an array body) so that N mints cost
 * a fixed number of round trips: one batch carries every mint's account, the epoch and each mint's
 * largest accounts; a second carries the token accounts (owners), hook programs and one page of
 * each mint's signatures (age context). Each element keeps its own outcome: a JSON-RPC error of
 * one element (e.g. -32010 for a mint excluded from the secondary indexes) is returned as data; a
 * transport fault fails the whole call as a ServiceError.
 */
import type { RpcTransport } from './rpc-client.ts';

/** Agave's cap on getMultipleAccounts keys. */
export const MULTIPLE_ACCOUNTS_MAX = 100;
/** Agave's JSON-RPC error: the key is excluded from the account secondary indexes. */
export const RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX = -32010;

/** An account as read, with its address. */
export interface RawAccount {
  readonly address: string;
  readonly owner: string;
  readonly lamports: bigint;
  readonly executable: boolean;
  readonly data: Uint8Array;
}

/** One element of a batch: its value with the context slot, or the JSON-RPC error. */
export type RpcElement<T> =
  | { readonly ok: true; readonly slot: number | null; readonly value: T }
  | { readonly ok: false; readonly code: number; readonly message: string };

/** One row of getTokenLargestAccounts. */
export interface LargestAccount {
  readonly address: string;
  readonly amount: bigint;
  readonly decimals: number;
}

/** Most signatures read per mint for the age context (one page). */
export const MINT_HISTORY_LIMIT = 1000;

/** One page of a mint's signatures: how many, and the block times of the newest and oldest. */
export interface MintHistory {
  readonly count: number;
  readonly limit: number;
  readonly newestBlockTime: number | null;
  readonly oldestBlockTime: number | null;
}

/** What the first round of the token analysis reads. */
export interface MintRound {
  /** Context slot of the getMultipleAccounts answer. */
  readonly slot: number;
  readonly mints: readonly (RawAccount | null)[];
  readonly epoch: RpcElement<number>;
  readonly largest: readonly RpcElement<readonly LargestAccount[]>[];
}

export interface TokenRpcMethods {
  /** One round trip: the mint accounts, the current epoch, and each mint's largest accounts. */
  readMints(mints: readonly string[], signal?: AbortSignal): Promise<MintRound>;
  /**
   * Any number of accounts (chunks of 100) and, in the same round trip, one page of signatures of
   * each of `historyOf`; slot of the first chunk.
   */
  readAccounts(
    addresses: readonly string[],
    signal?: AbortSignal,
    historyOf?: readonly string[],
  ): Promise<{
    readonly slot: number;
    readonly accounts: readonly (RawAccount | null)[];
    readonly history: readonly RpcElement<MintHistory>[];
  }>;
}

interface JsonRpcReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: number; readonly message?: string };
}
interface UiAccount {
  readonly owner: string;
  readonly lamports: number;
  readonly executable: boolean;
  readonly data: readonly [string, string];
}
interface Contextual<T> {
  readonly context?: { readonly slot?: number };
  readonly value: T;
}

const COMMITMENT = 'confirmed';

function toRawAccount(address: string, ui: UiAccount | null): RawAccount | null {
  if (ui === null) return null;
  return { address, owner: ui.owner, lamports: BigInt(ui.lamports), executable: ui.executable, data: new Uint8Array(Buffer.from(ui.data[0], 'base64')) };
}

function element<T>(reply: JsonRpcReply | undefined, map: (result: unknown) => T): RpcElement<T> {
  if (reply === undefined) return { ok: false, code: 0, message: 'no reply for this request in the batch' };
  if (reply.error) return { ok: false, code: reply.error.code ?? 0, message: reply.error.message ?? 'error' };
  const result = reply.result as Contextual<unknown> | undefined;
  const slot = typeof result?.context?.slot === 'number' ? result.context.slot : null;
  return { ok: true, slot, value: map(result) };
}

function orThrow<T>(e: RpcElement<T>, what: string): T & object {
  if (!e.ok) throw new Error(`${what}: ${e.message}`);
  return e.value as T & object;
}

/** Creates the token methods over the shared transport (its time limit and fault mapping). */
export function createTokenRpcMethods(transport: RpcTransport): TokenRpcMethods {
  /** One POST of `requests`; `read` turns the replies (by request index) into the result inside the same time limit. */
  async function batch<T>(
    what: string,
    requests: readonly { method: string; params: unknown[] }[],
    signal: AbortSignal | undefined,
    read: (replies: JsonRpcReply[]) => T,
  ): Promise<T> {
    return transport.call(what, signal, async (abortSignal) => {
      const body = JSON.stringify(requests.map((r, id) => ({ jsonrpc: '2.0', id, method: r.method, params: r.params })));
      // Plain JSON (numbers, not kit's bigints): the readers below expect what the node sent.
      const replies = JSON.parse(await transport.post(body, abortSignal)) as unknown;
      if (!Array.isArray(replies)) throw new Error('batch answered with a single object');
      const byId: JsonRpcReply[] = [];
      for (const r of replies as JsonRpcReply[]) if (typeof r.id === 'number') byId[r.id] = r;
      return read(byId);
    });
  }

  const accountsRequest = (addresses: readonly string[]) => ({
    method: 'getMultipleAccounts',
    params: [addresses, { encoding: 'base64', commitment: COMMITMENT }],
  });
  const mapAccounts = (addresses: readonly string[]) => (r: unknown) =>
    (r as Contextual<(UiAccount | null)[]>).value.map((ui, i) => toRawAccount(addresses[i]!, ui));

  return {
    async readMints(mints, signal) {
      const requests = [
        accountsRequest(mints),
        { method: 'getEpochInfo', params: [{ commitment: COMMITMENT }] },
        ...mints.map((m) => ({ method: 'getTokenLargestAccounts', params: [m, { commitment: COMMITMENT }] })),
      ];
      return batch('getMultipleAccounts+getTokenLargestAccounts', requests, signal, (replies) => {
        const accounts = element(replies[0], mapAccounts(mints));
        const slot = accounts.ok ? (accounts.slot ?? 0) : 0;
        const epoch = element(replies[1], (r) => Number((r as { epoch: number }).epoch));
        const largest = mints.map((_, i) =>
          element(replies[i + 2], (r) =>
            (r as Contextual<{ address: string; amount: string; decimals: number }[]>).value.map((row) => ({
              address: row.address,
              amount: BigInt(row.amount),
              decimals: row.decimals,
            })),
          ),
        );
        return { slot, mints: orThrow(accounts, 'getMultipleAccounts'), epoch, largest };
      });
    },
    async readAccounts(addresses, signal, historyOf = []) {
      if (addresses.length === 0 && historyOf.length === 0) return { slot: 0, accounts: [], history: [] };
      const chunks: string[][] = [];
      for (let i = 0; i < addresses.length; i += MULTIPLE_ACCOUNTS_MAX) chunks.push(addresses.slice(i, i + MULTIPLE_ACCOUNTS_MAX));
      const historyRequests = historyOf.map((m) => ({ method: 'getSignaturesForAddress', params: [m, { limit: MINT_HISTORY_LIMIT, commitment: COMMITMENT }] }));
      return batch('getMultipleAccounts+getSignaturesForAddress', [...chunks.map(accountsRequest), ...historyRequests], signal, (replies) => {
        const parts = chunks.map((c, i) => element(replies[i], mapAccounts(c)));
        const first = parts[0];
        const history = historyOf.map((_, i) =>
          element(replies[chunks.length + i], (r) => {
            const rows = r as { blockTime: number | null }[];
            return {
              count: rows.length,
              limit: MINT_HISTORY_LIMIT,
              newestBlockTime: rows[0]?.blockTime ?? null,
              oldestBlockTime: rows.at(-1)?.blockTime ?? null,
            };
          }),
        );
        return { slot: first?.ok ? (first.slot ?? 0) : 0, accounts: parts.flatMap((p) => orThrow(p, 'getMultipleAccounts')), history };
      });
    },
  };
}
