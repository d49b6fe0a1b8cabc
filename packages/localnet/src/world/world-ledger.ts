/**
 * Writes the world's token state straight into the chain (`setAccount`, no transactions: fast
 * enough for thousands of accounts) while keeping the books: every token account is recorded per
 * mint, and each mint is written last with `supply` equal to the sum of its accounts, so holder
 * shares computed from chain data add up exactly.
 */
import { address as toAddress } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import type { LocalChain } from '../chain/local-chain.ts';
import { encodeMintAccount, encodeTokenAccount, type ExtensionInput } from '../encoding/token-accounts.ts';
import type { AccountStateName } from '../encoding/token-layout.ts';
import type { MintBase } from '../encoding/token-layout.ts';

/** SPL Token program id. */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Token-2022 program id. */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** System program id. */
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
/** The wrapped-SOL mint. */
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';

/** A mint the ledger will write. */
export interface MintPlan {
  readonly address: string;
  readonly programId: string;
  readonly decimals: number;
  readonly mintAuthority: string | null;
  readonly freezeAuthority: string | null;
  readonly extensions?: readonly ExtensionInput[];
  /** Extensions every token account of this mint carries (Token-2022 account-side markers). */
  readonly accountExtensions?: readonly ExtensionInput[];
}

/** One token account as written. */
export interface TokenHolding {
  readonly address: string;
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
  readonly state: AccountStateName;
}

/** The ledger of one world build. */
export interface WorldLedger {
  /** Registers a mint (written by `commitMints`). */
  planMint(plan: MintPlan): void;
  /** Writes a token account now; `address` defaults to the owner's associated token account. */
  addTokenAccount(args: { mint: string; owner: string; amount: bigint; address?: string; state?: AccountStateName }): Promise<TokenHolding>;
  /** Associated token account of `owner` for `mint`. */
  ata(owner: string, mint: string): Promise<string>;
  /** Writes (or overwrites) a system account with `lamports`. */
  fundSystemAccount(address: string, lamports: bigint): void;
  /** Writes every planned mint with supply = sum of its accounts (or `supplyOf` it); returns supplies. */
  commitMints(supplyOf?: (mint: string) => bigint): ReadonlyMap<string, bigint>;
  holdings(mint: string): readonly TokenHolding[];
  /** Every address written so far, in write order. */
  readonly written: readonly string[];
  rent(dataLength: number): bigint;
}

/** Creates the ledger over `chain`. */
export function createWorldLedger(chain: LocalChain): WorldLedger {
  const mints = new Map<string, MintPlan>();
  const byMint = new Map<string, TokenHolding[]>();
  const written: string[] = [];
  const rentCache = new Map<number, bigint>();
  const rent = (len: number): bigint => {
    let r = rentCache.get(len);
    if (r === undefined) {
      r = chain.minimumBalanceForRentExemption(len);
      rentCache.set(len, r);
    }
    return r;
  };
  const mark = (address: string): void => {
    written.push(address);
  };

  async function ata(owner: string, mint: string): Promise<string> {
    const plan = mints.get(mint);
    if (plan === undefined) throw new Error(`mint ${mint} not planned`);
    const [pda] = await findAssociatedTokenPda({ owner: toAddress(owner), mint: toAddress(mint), tokenProgram: toAddress(plan.programId) });
    return String(pda);
  }

  return {
    planMint: (plan) => {
      mints.set(plan.address, plan);
      byMint.set(plan.address, byMint.get(plan.address) ?? []);
    },
    ata,
    async addTokenAccount({ mint, owner, amount, address, state = 'initialized' }) {
      const plan = mints.get(mint);
      if (plan === undefined) throw new Error(`mint ${mint} not planned`);
      const at = address ?? (await ata(owner, mint));
      const isNative = mint === NATIVE_MINT;
      const reserve = isNative ? rent(165) : null;
      const data = encodeTokenAccount(
        {
          mint,
          owner,
          amount,
          delegate: null,
          state,
          isNative: reserve,
          delegatedAmount: 0n,
          closeAuthority: null,
        },
        plan.accountExtensions ?? [],
      );
      // A wrapped-SOL account holds its token amount as lamports on top of the rent reserve.
      const lamports = rent(data.length) + (isNative ? amount : 0n);
      chain.setAccount(at, { lamports, data, owner: plan.programId });
      mark(at);
      const holding: TokenHolding = { address: at, mint, owner, amount, state };
      byMint.get(mint)?.push(holding);
      return holding;
    },
    fundSystemAccount(address, lamports) {
      chain.setAccount(address, { lamports, data: new Uint8Array(), owner: SYSTEM_PROGRAM_ID });
      mark(address);
    },
    commitMints(supplyOf) {
      const supplies = new Map<string, bigint>();
      const sumOf = (mint: string): bigint => (byMint.get(mint) ?? []).reduce((sum, h) => sum + h.amount, 0n);
      for (const plan of mints.values()) {
        // The native mint's own supply field stays 0 on mainnet: wrapped SOL is not minted.
        const supply = plan.address === NATIVE_MINT ? 0n : (supplyOf ?? sumOf)(plan.address);
        const mint: MintBase = {
          mintAuthority: plan.mintAuthority,
          supply,
          decimals: plan.decimals,
          isInitialized: true,
          freezeAuthority: plan.freezeAuthority,
        };
        const data = encodeMintAccount(mint, plan.extensions ?? []);
        chain.setAccount(plan.address, { lamports: rent(data.length), data, owner: plan.programId });
        mark(plan.address);
        supplies.set(plan.address, supply);
      }
      return supplies;
    },
    holdings: (mint) => byMint.get(mint) ?? [],
    written,
    rent,
  };
}
