/**
 * Wallet profile: the band rule (fresh/active/heavy/empty) over the signatures seen in one scan
 * window, the wallet age from its oldest signature in that window, and the answer of
 * `/v1/wallet-scan`. The rule is pure and stated in every summary so an answer can be re-derived
 * from getSignaturesForAddress, getAccountInfo and getTokenAccountsByOwner alone.
 */
import { TOKEN_2022_PROGRAM_ID, type OwnedTokenAccount, type SignatureEntry } from '../../chain/solana/rpc-forensics-methods.ts';

/** Signatures read per scan (one getSignaturesForAddress page, Agave's maximum). */
export const WALLET_SCAN_SIGNATURE_LIMIT = 1000;
/** Band thresholds on signatures in the scan window. */
export const WALLET_BANDS = { activeMinSignatures: 10, heavyMinSignatures: 50 } as const;
/** Token accounts listed in an answer (all are counted). */
export const LISTED_TOKEN_ACCOUNTS = 20;
export const LAMPORTS_PER_SOL = 1_000_000_000;

export const WALLET_DISCLAIMER = 'Factual on-chain activity profile with stated thresholds; not financial advice and not an identity or intent attribution.';

export const WALLET_BAND_RULE =
  `empty: 0 lamports and no token accounts; otherwise by signatures in the latest ${WALLET_SCAN_SIGNATURE_LIMIT}: ` +
  `fresh < ${WALLET_BANDS.activeMinSignatures}, active ${WALLET_BANDS.activeMinSignatures}-${WALLET_BANDS.heavyMinSignatures - 1}, ` +
  `heavy >= ${WALLET_BANDS.heavyMinSignatures}`;

export type WalletBand = 'fresh' | 'active' | 'heavy' | 'empty';

/** The band of a wallet from its lamports, token-account count and signatures in the window. */
export function walletBand(lamports: bigint, tokenAccounts: number, signatures: number): WalletBand {
  if (lamports === 0n && tokenAccounts === 0) return 'empty';
  if (signatures >= WALLET_BANDS.heavyMinSignatures) return 'heavy';
  if (signatures >= WALLET_BANDS.activeMinSignatures) return 'active';
  return 'fresh';
}

/** Wallet age from the oldest signature seen, or `unknown`. */
export type WalletAge =
  | {
      readonly firstSeenUnix: number;
      readonly firstSeenIso: string;
      readonly seconds: number;
      readonly days: number;
      /** `exact` when the whole history fit the window, `lower-bound` when older history may exist. */
      readonly basis: 'exact' | 'lower-bound';
    }
  | 'unknown';

/**
 * Age from signatures (newest first, as the RPC answers). A full window, or an oldest signature
 * without a block time, makes the figure a lower bound; no dated signature makes it `unknown`.
 */
export function walletAge(signatures: readonly SignatureEntry[], windowLimit: number, nowUnix: number): WalletAge {
  let oldestDated: SignatureEntry | undefined;
  for (let i = signatures.length - 1; i >= 0; i -= 1) {
    const s = signatures[i];
    if (s !== undefined && s.blockTime !== null) {
      oldestDated = s;
      break;
    }
  }
  if (oldestDated === undefined || oldestDated.blockTime === null) return 'unknown';
  const complete = signatures.length < windowLimit && signatures[signatures.length - 1] === oldestDated;
  const seconds = Math.max(0, nowUnix - oldestDated.blockTime);
  return {
    firstSeenUnix: oldestDated.blockTime,
    firstSeenIso: new Date(oldestDated.blockTime * 1000).toISOString(),
    seconds,
    days: Math.round((seconds / 86_400) * 1000) / 1000,
    basis: complete ? 'exact' : 'lower-bound',
  };
}

/** What a scan read from the chain. */
export interface WalletObservation {
  readonly address: string;
  readonly lamports: bigint;
  /** Owner program of the address's account; null when the account does not exist. */
  readonly accountOwner: string | null;
  readonly executable: boolean;
  readonly signatures: readonly SignatureEntry[];
  readonly tokenAccounts: readonly OwnedTokenAccount[];
  readonly windowLimit: number;
  readonly nowUnix: number;
}

/** Exact decimal SOL text of a lamport amount (no float exponent notation in summaries). */
export function formatSol(lamports: bigint): string {
  const whole = lamports / BigInt(LAMPORTS_PER_SOL);
  const frac = (lamports % BigInt(LAMPORTS_PER_SOL)).toString().padStart(9, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

function ageText(age: WalletAge): string {
  if (age === 'unknown') return 'age unknown (no dated signature)';
  return age.basis === 'exact'
    ? `first seen ${age.firstSeenIso}`
    : `first seen no later than ${age.firstSeenIso} (lower bound: older history exists beyond the window)`;
}

/** The `/v1/wallet-scan` answer from one observation. */
export function walletProfile(o: WalletObservation) {
  const count = o.signatures.length;
  const band = walletBand(o.lamports, o.tokenAccounts.length, count);
  const age = walletAge(o.signatures, o.windowLimit, o.nowUnix);
  const spl = o.tokenAccounts.filter((t) => t.programId !== TOKEN_2022_PROGRAM_ID);
  const t22 = o.tokenAccounts.length - spl.length;
  const nonZero = o.tokenAccounts.filter((t) => t.amount !== '0' && t.amount !== 'unknown');
  const solBalance = Number(o.lamports) / LAMPORTS_PER_SOL;
  const windowFull = count >= o.windowLimit;
  const newest = o.signatures.find((s) => s.blockTime !== null);
  return {
    address: o.address,
    profile: {
      band,
      summary: `${band}: ${windowFull ? `at least ${count}` : count} signatures, ${formatSol(o.lamports)} SOL, ${o.tokenAccounts.length} token accounts; ${ageText(age)}. Rule: ${WALLET_BAND_RULE}.`,
      rule: WALLET_BAND_RULE,
      thresholds: { ...WALLET_BANDS, signatureWindow: o.windowLimit },
    },
    solBalance,
    lamports: o.lamports.toString(),
    account: { exists: o.accountOwner !== null, owner: o.accountOwner ?? 'unknown', executable: o.executable },
    activity: {
      recentSignatures: count,
      window: o.windowLimit,
      windowFull,
      failedInWindow: o.signatures.filter((s) => s.failed).length,
      newestSlot: o.signatures[0]?.slot ?? null,
      lastActiveIso: newest?.blockTime != null ? new Date(newest.blockTime * 1000).toISOString() : 'unknown',
    },
    age,
    tokens: {
      splTokenAccounts: spl.length,
      token2022Accounts: t22,
      withBalance: nonZero.length,
      listed: o.tokenAccounts
        .slice(0, LISTED_TOKEN_ACCOUNTS)
        .map((t) => ({ account: t.address, mint: t.mint, programId: t.programId, amount: t.amount, decimals: t.decimals })),
    },
    disclaimer: WALLET_DISCLAIMER,
  };
}

/** A wallet's profile, as `/v1/wallet-scan` answers it. */
export type WalletProfile = ReturnType<typeof walletProfile>;
