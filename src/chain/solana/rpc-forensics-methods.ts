/**
 * RPC calls of the forensics group (wallet-scan, tx-inspect, simulate), as plain data: balance and owner,
 * signature history, token accounts of both token programs, a landed transaction with its status
 * meta, and a dry-run simulation. Transport faults become 502 ServiceErrors; a simulation's
 * JSON-RPC error is returned as data (it judges the transaction, not the upstream).
 */
import type { Address, Base64EncodedWireTransaction, Signature } from '@solana/kit';
import { landedTransactionOf, type LandedTransaction, type RawTx } from './landed-transaction.ts';
import { jsonSafe, numberOrNull, type RpcFailure, type RpcTransport } from './rpc-client.ts';

export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** One entry of getSignaturesForAddress. */
export interface SignatureEntry {
  readonly signature: string;
  readonly slot: number;
  /** Unix seconds; null when the node does not know the block time. */
  readonly blockTime: number | null;
  readonly failed: boolean;
}

/** A token account of an owner (jsonParsed). */
export interface OwnedTokenAccount {
  readonly address: string;
  readonly programId: string;
  readonly mint: string;
  /** Base units. */
  readonly amount: string;
  readonly decimals: number;
}

/** A dry-run outcome. */
export interface SimulationOutcome {
  readonly ok: true;
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly unitsConsumed: number | null;
  /** Program ids of inner instructions, when the node reported them. */
  readonly innerProgramIds: readonly string[];
}

/** An account's lamports and owner, without its data. */
export interface AccountMeta {
  readonly exists: boolean;
  readonly lamports: bigint;
  readonly owner: string | null;
  readonly executable: boolean;
}

export interface ForensicsRpcMethods {
  /** getAccountInfo with an empty data slice: balance and owner, never the data. */
  getAccountMeta(address: string, signal?: AbortSignal): Promise<AccountMeta>;
  getSignaturesForAddress(address: string, limit: number, signal?: AbortSignal): Promise<SignatureEntry[]>;
  /** Token accounts of `owner` under one token program. */
  getTokenAccountsByOwner(owner: string, programId: string, signal?: AbortSignal): Promise<OwnedTokenAccount[]>;
  /** The largest token account of a mint (address and base units), null when it has none. */
  getLargestTokenAccount(mint: string, signal?: AbortSignal): Promise<{ address: string; amount: string } | null>;
  /** null when the node has no such (confirmed) transaction. */
  getTransaction(signature: string, signal?: AbortSignal): Promise<LandedTransaction | null>;
  /** Never signs or sends: sigVerify off, the recent blockhash replaced by the node's. */
  simulateTransaction(wireBase64: string, signal?: AbortSignal): Promise<SimulationOutcome | RpcFailure>;
}

interface ParsedTokenAccount {
  pubkey: string;
  account: { data: { parsed?: { info?: { mint?: string; tokenAmount?: { amount?: string; decimals?: number } } } } | unknown };
}

function ownedAccountOf(programId: string, row: ParsedTokenAccount): OwnedTokenAccount {
  const info = (row.account.data as { parsed?: { info?: { mint?: string; tokenAmount?: { amount?: string; decimals?: number } } } }).parsed?.info;
  return {
    address: row.pubkey,
    programId,
    mint: info?.mint ?? 'unknown',
    amount: info?.tokenAmount?.amount ?? 'unknown',
    decimals: info?.tokenAmount?.decimals ?? 0,
  };
}

/** Creates the forensics calls over the shared transport. */
export function createForensicsRpcMethods(transport: RpcTransport): ForensicsRpcMethods {
  const { rpc, call, judged } = transport;
  return {
    async getAccountMeta(address, signal) {
      const { value } = await call('getAccountInfo', signal, (s) =>
        rpc.getAccountInfo(address as Address, { encoding: 'base64', dataSlice: { offset: 0, length: 0 }, commitment: 'confirmed' }).send({ abortSignal: s }),
      );
      if (value === null) return { exists: false, lamports: 0n, owner: null, executable: false };
      return { exists: true, lamports: BigInt(value.lamports), owner: value.owner, executable: value.executable };
    },
    async getSignaturesForAddress(address, limit, signal) {
      const rows = await call('getSignaturesForAddress', signal, (s) =>
        rpc.getSignaturesForAddress(address as Address, { limit, commitment: 'confirmed' }).send({ abortSignal: s }),
      );
      return rows.map((r) => ({ signature: r.signature, slot: Number(r.slot), blockTime: numberOrNull(r.blockTime), failed: r.err !== null }));
    },
    async getTokenAccountsByOwner(owner, programId, signal) {
      const { value } = await call('getTokenAccountsByOwner', signal, (s) =>
        rpc
          .getTokenAccountsByOwner(owner as Address, { programId: programId as Address }, { encoding: 'jsonParsed', commitment: 'confirmed' })
          .send({ abortSignal: s }),
      );
      return (value as unknown as ParsedTokenAccount[]).map((row) => ownedAccountOf(programId, row));
    },
    async getLargestTokenAccount(mint, signal) {
      const { value } = await call('getTokenLargestAccounts', signal, (s) =>
        rpc.getTokenLargestAccounts(mint as Address, { commitment: 'confirmed' }).send({ abortSignal: s }),
      );
      const top = value[0];
      return top === undefined ? null : { address: top.address, amount: top.amount };
    },
    async getTransaction(signature, signal) {
      const raw = await call('getTransaction', signal, (s) =>
        rpc.getTransaction(signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send({ abortSignal: s }),
      );
      return raw === null ? null : landedTransactionOf(signature, raw as unknown as RawTx);
    },
    async simulateTransaction(wireBase64, signal) {
      const out = await judged('simulateTransaction', signal, (s) =>
        rpc
          .simulateTransaction(wireBase64 as Base64EncodedWireTransaction, {
            encoding: 'base64',
            sigVerify: false,
            replaceRecentBlockhash: true,
            innerInstructions: true,
            commitment: 'confirmed',
          })
          .send({ abortSignal: s }),
      );
      if ('ok' in out) return out;
      const v = out.value as unknown as {
        err: unknown;
        logs: string[] | null;
        unitsConsumed?: bigint;
        innerInstructions?: { instructions: { programId?: string }[] }[] | null;
      };
      const innerProgramIds = (v.innerInstructions ?? []).flatMap((g) =>
        g.instructions.map((ix) => ix.programId).filter((p): p is string => typeof p === 'string'),
      );
      return {
        ok: true,
        err: v.err === null || v.err === undefined ? null : jsonSafe(v.err),
        logs: v.logs ?? [],
        unitsConsumed: numberOrNull(v.unitsConsumed),
        innerProgramIds,
      };
    },
  };
}
