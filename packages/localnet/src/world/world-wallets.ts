/**
 * Wallets of every profile band with real history: each transaction is signed and executed by the
 * chain, so getSignaturesForAddress, getTransaction and balances all show it. Bands by activity:
 * fresh (2 signatures), active (~13), heavy (~60, several token accounts, tips), empty (no SOL,
 * no token accounts: one never used, one funded and drained to zero).
 */
import type { LocalChain } from '../chain/local-chain.ts';
import type { WalletBand } from './world-fixture.ts';
import type { Prng, WorldKeys, WorldSigner } from '../signing/world-keys.ts';
import type { WorldLedger } from './world-ledger.ts';
import { buildSignedWire, computeBudgetIxs, transferCheckedIx, transferSolIx } from '../signing/world-transactions.ts';

const LAMPORTS_PER_SOL = 1_000_000_000n;
/** Base fee of a one-signature transaction. */
const BASE_FEE_LAMPORTS = 5000n;
/** Transactions per slot while writing history, so it spans several blocks. */
const TXS_PER_SLOT = 8;
const AIRDROP_SOL: Readonly<Record<WalletBand, bigint>> = { fresh: 2n, active: 20n, heavy: 200n, empty: 0n };
/** Transactions each wallet of a band sends after its airdrop. */
export const EXTRA_WALLET_TXS: Readonly<Record<WalletBand, number>> = { fresh: 1, active: 12, heavy: 60, empty: 0 };

/** A wallet and the ground truth of what the world did with it. */
export interface WorldWallet {
  readonly band: WalletBand;
  readonly label: string;
  readonly signer: WorldSigner;
  readonly address: string;
  /** Token accounts the wallet owns (USDC for active and heavy wallets). */
  readonly tokenAccounts: readonly string[];
  /** Signatures of every landed transaction that involved the wallet, oldest first. */
  readonly signatures: string[];
}

/** The USDC-like mint wallets move. */
export interface WalletToken {
  readonly mint: string;
  readonly decimals: number;
  readonly programId: string;
}

/** Creates the wallets and writes their token accounts (before mints are committed). */
export async function planWallets(args: {
  readonly keys: WorldKeys;
  readonly ledger: WorldLedger;
  readonly counts: Readonly<Record<WalletBand, number>>;
  readonly token: WalletToken;
}): Promise<WorldWallet[]> {
  const wallets: WorldWallet[] = [];
  for (const band of ['heavy', 'active', 'fresh', 'empty'] as const) {
    for (let i = 0; i < args.counts[band]; i += 1) {
      const label = `${band}-${i}`;
      const signer = args.keys.signer(`wallet/${label}`);
      const tokenAccounts: string[] = [];
      if (band === 'active' || band === 'heavy') {
        const units = (band === 'heavy' ? 250_000n : 5_000n) * 10n ** BigInt(args.token.decimals);
        tokenAccounts.push((await args.ledger.addTokenAccount({ mint: args.token.mint, owner: signer.address, amount: units })).address);
      }
      wallets.push({ band, label, signer, address: signer.address, tokenAccounts, signatures: [] });
    }
  }
  return wallets;
}

/** Executes every wallet's history through the chain; returns how many transactions landed. */
export function runWalletHistory(args: {
  readonly chain: LocalChain;
  readonly wallets: readonly WorldWallet[];
  readonly token: WalletToken;
  readonly tipAccounts: readonly string[];
  readonly prng: Prng;
}): number {
  const { chain, wallets, prng } = args;
  let inSlot = 0;
  let landed = 0;
  // Signatures landed in the open slot: all of them share its blockhash.
  const slotSignatures = new Set<string>();
  const byAddress = new Map(wallets.map((w) => [w.address, w]));
  const closeSlot = (): void => {
    chain.advanceSlot();
    inSlot = 0;
    slotSignatures.clear();
  };
  const record = (signature: string, involved: readonly string[]): void => {
    for (const a of new Set(involved)) byAddress.get(a)?.signatures.push(signature);
    landed += 1;
    slotSignatures.add(signature);
    if (++inSlot >= TXS_PER_SLOT) closeSlot();
  };
  const send = (payer: WorldSigner, ixs: Parameters<typeof buildSignedWire>[1], involved: readonly string[]): void => {
    let signed = buildSignedWire(payer, ixs, chain.latestBlockhash('processed').blockhash);
    // The PRNG can draw the same transfer twice within one slot: under the same blockhash that is
    // the same transaction (AlreadyProcessed), so, as a real client would, send it in the next slot.
    if (slotSignatures.has(signed.signature)) {
      closeSlot();
      signed = buildSignedWire(payer, ixs, chain.latestBlockhash('processed').blockhash);
    }
    const result = chain.sendTransaction(signed.wire);
    if (!result.ok || result.tx.err !== null) throw new Error(`world history tx failed: ${JSON.stringify(result.ok ? result.tx.err : result.message)}`);
    record(result.signature, involved);
  };
  for (const w of wallets) {
    const sol = AIRDROP_SOL[w.band];
    if (sol === 0n) continue;
    const drop = chain.airdrop(w.address, sol * LAMPORTS_PER_SOL);
    if (!drop.ok) throw new Error(`world airdrop failed: ${drop.message}`);
    record(drop.signature, [w.address]);
  }
  const peers = wallets.filter((w) => w.band === 'active' || w.band === 'heavy');
  for (const w of wallets) {
    for (let n = 0; n < EXTRA_WALLET_TXS[w.band]; n += 1) {
      const peer = prng.pick(peers.filter((p) => p !== w)) ?? w;
      const kind = w.tokenAccounts.length > 0 && peer.tokenAccounts.length > 0 ? prng.int(0, 2) : 0;
      if (kind === 1) {
        send(
          w.signer,
          [
            transferCheckedIx({
              source: w.tokenAccounts[0] ?? '',
              mint: args.token.mint,
              destination: peer.tokenAccounts[0] ?? '',
              authority: w.address,
              amount: BigInt(prng.int(1, 500)) * 10n ** BigInt(args.token.decimals),
              decimals: args.token.decimals,
              programId: args.token.programId,
            }),
          ],
          [w.address],
        ); // The peer's wallet key is not in a token transfer, only its token account.
      } else if (kind === 2) {
        const tip = transferSolIx(w.address, prng.pick(args.tipAccounts), BigInt(prng.int(1_000, 100_000)));
        send(w.signer, [...computeBudgetIxs(2_000, BigInt(prng.int(1_000, 200_000))), tip], [w.address]);
      } else {
        const lamports = BigInt(prng.int(1_000_000, 50_000_000));
        send(w.signer, [transferSolIx(w.address, peer.address, lamports)], [w.address, peer.address]);
      }
    }
  }
  drainOneEmptyWallet(
    chain,
    wallets.filter((w) => w.band === 'empty'),
    record,
  );
  // Close slots until the whole history is finalized, so every commitment level sees it.
  const lastSlot = chain.openSlot();
  while (chain.slot('finalized') < lastSlot) chain.advanceSlot();
  return landed;
}

/** Funds the second empty wallet and sends everything back, leaving it at zero with history. */
function drainOneEmptyWallet(chain: LocalChain, empties: readonly WorldWallet[], record: (sig: string, involved: readonly string[]) => void): void {
  const w = empties[1];
  if (w === undefined) return;
  const amount = LAMPORTS_PER_SOL / 100n;
  const drop = chain.airdrop(w.address, amount);
  if (!drop.ok) throw new Error(`world airdrop failed: ${drop.message}`);
  record(drop.signature, [w.address]);
  const back = buildSignedWire(
    w.signer,
    [transferSolIx(w.address, chain.faucetAddress, amount - BASE_FEE_LAMPORTS)],
    chain.latestBlockhash('processed').blockhash,
  );
  const result = chain.sendTransaction(back.wire);
  if (!result.ok || result.tx.err !== null) throw new Error('world: draining the empty wallet failed');
  record(result.signature, [w.address]);
}
