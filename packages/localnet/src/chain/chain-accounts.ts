/**
 * Account reads and writes of the chain core over LiteSVM, keeping the token-account index in
 * step with every write (world building and executed transactions alike).
 */
import type { LiteSVM } from 'litesvm';
import { address as toAddress, lamports as toLamports, type EncodedAccount } from '@solana/kit';
import type { ChainIndexes } from './chain-indexes.ts';
import { classifyTokenData, parseTokenAccountBase } from '../encoding/token-layout.ts';

/** An account as the world builder sets it. */
export interface AccountInput {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable?: boolean;
}

/** An account as read back. */
export interface AccountData {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable: boolean;
}

function toAccountData(a: EncodedAccount): AccountData {
  // kit types the bytes as readonly; LiteSVM hands out a fresh copy, so exposing it is safe.
  return { lamports: BigInt(a.lamports), data: a.data as Uint8Array, owner: String(a.programAddress), executable: a.executable };
}

/** Account access bound to one LiteSVM and its indexes. */
export function createChainAccounts(svm: LiteSVM, indexes: ChainIndexes) {
  function getAccount(address: string): AccountData | null {
    const a = svm.getAccount(toAddress(address));
    return a.exists ? toAccountData(a) : null;
  }

  function reindex(address: string): void {
    const account = getAccount(address);
    if (!account || classifyTokenData(account.owner, account.data) !== 'account') {
      indexes.setTokenAccount(address, null);
      return;
    }
    const base = parseTokenAccountBase(account.data);
    indexes.setTokenAccount(address, { mint: base.mint, owner: base.owner, programId: account.owner });
  }

  return {
    getAccount,
    /** Re-reads `address` and updates the token-account index entry. */
    reindex,
    /** Creates or overwrites an account, bypassing the runtime (world building). */
    setAccount(address: string, account: AccountInput): void {
      svm.setAccount({
        address: toAddress(address),
        lamports: toLamports(account.lamports),
        data: account.data,
        programAddress: toAddress(account.owner),
        executable: account.executable ?? false,
        space: BigInt(account.data.length),
      });
      reindex(address);
    },
    /** All accounts owned by a program (a LiteSVM scan, as costly as on a real node). */
    getProgramAccounts(programId: string): { address: string; account: AccountData }[] {
      return svm.getProgramAccounts(toAddress(programId)).map((a) => ({ address: String(a.address), account: toAccountData(a) }));
    },
    /** Raw bytes of an account (lookup tables), or null. */
    readData(address: string): Uint8Array | null {
      return getAccount(address)?.data ?? null;
    },
  };
}

/** The account access `createChainAccounts` returns. */
export type ChainAccounts = ReturnType<typeof createChainAccounts>;
