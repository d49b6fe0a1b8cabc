/**
 * A Solana payer for payment tests: a fresh ed25519 key (raw seed kept so tests can re-sign
 * mutated transactions), funded through the localnet faucets, and a builder of exact-SVM payment
 * transactions whose every part can be altered (amount, destination, authority, extra
 * instructions, compute-unit price) to probe the verifier.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { randomBytes } from 'node:crypto';

export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** One JSON-RPC call to the localnet. */
export async function rpcCall<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export interface TestPayer {
  readonly signer: KeyPairSigner;
  readonly seed: Uint8Array;
}

/** A fresh payer holding `units` of the localnet stablecoin. */
export async function fundedPayer(rpcUrl: string, units: number): Promise<TestPayer> {
  const seed = new Uint8Array(randomBytes(32));
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  await rpcCall(rpcUrl, 'requestAirdrop', [signer.address, 1_000_000_000]);
  await rpcCall(rpcUrl, 'localnet_fundStablecoin', [signer.address, units]);
  return { signer, seed };
}

/** `owner`'s associated token account for `mint`: the source its payments draw from. */
export async function sourceAccount(owner: string, mint: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** Token balance (base units) of `owner`'s associated account for `mint`; 0 when absent. */
export async function tokenBalance(rpcUrl: string, owner: string, mint: string): Promise<bigint> {
  const ata = await sourceAccount(owner, mint);
  try {
    const r = await rpcCall<{ value: { amount: string } }>(rpcUrl, 'getTokenAccountBalance', [ata, { commitment: 'processed' }]);
    return BigInt(r.value.amount);
  } catch {
    return 0n;
  }
}

export interface PaymentTxOptions {
  readonly payer: TestPayer;
  readonly feePayer: string;
  readonly mint: string;
  readonly payTo: string;
  readonly amount: bigint;
  readonly blockhash: string;
  readonly decimals?: number;
  readonly cuPrice?: bigint;
  /** Transfer authority other than the payer (e.g. the fee payer); it will not sign. */
  readonly authority?: string;
  readonly extra?: readonly Instruction[];
  /** Leave out the compute-budget instructions. */
  readonly noComputeBudget?: boolean;
  /** Compute-unit limit (default 20 000, as the official client sets). */
  readonly cuLimit?: number;
  /** Rearranges the standard instructions (limit, price, transfer, memo) before `extra` is appended. */
  readonly arrange?: (parts: { limit: Instruction; price: Instruction; transfer: Instruction; memo: Instruction }) => Instruction[];
}

/** A partially signed (payer only) exact-SVM payment transaction, base64 wire. */
export async function buildPaymentTx(o: PaymentTxOptions): Promise<string> {
  const mint = address(o.mint);
  const [source] = await findAssociatedTokenPda({ owner: o.payer.signer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ owner: address(o.payTo), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const authority = o.authority ? createNoopSigner(o.authority as Address) : o.payer.signer;
  const memo: Instruction = { programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(randomBytes(16).toString('hex')) };
  const limit = getSetComputeUnitLimitInstruction({ units: o.cuLimit ?? 20_000 });
  const price = getSetComputeUnitPriceInstruction({ microLamports: o.cuPrice ?? 1n });
  const transfer = getTransferCheckedInstruction({ source, mint, destination, authority, amount: o.amount, decimals: o.decimals ?? 6 });
  const standard = o.arrange ? o.arrange({ limit, price, transfer, memo }) : [...(o.noComputeBudget ? [] : [limit, price]), transfer, memo];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(o.feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: o.blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions([...standard, ...(o.extra ?? [])], m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  return getBase64EncodedWireTransaction(signed);
}

/** The part of a 402's PaymentRequired a hand-built payment answers: one Solana option and the resource. */
export interface SolanaTerms {
  readonly accepted: { readonly payTo: string; readonly amount: string; readonly extra?: Record<string, unknown> } & Record<string, unknown>;
  readonly resource?: unknown;
}

/**
 * The PAYMENT-SIGNATURE of a payment built by hand for `terms` (the price, payTo and blockhash
 * its 402 gave), with `mutate` applied to the transaction's options first.
 */
export async function handBuiltPaymentHeader(
  terms: SolanaTerms,
  o: { readonly payer: TestPayer; readonly feePayer: string; readonly mint: string },
  mutate: (base: PaymentTxOptions) => PaymentTxOptions = (base) => base,
): Promise<string> {
  const { accepted } = terms;
  const base: PaymentTxOptions = { ...o, payTo: accepted.payTo, amount: BigInt(accepted.amount), blockhash: String(accepted.extra?.recentBlockhash) };
  const transaction = await buildPaymentTx(mutate(base));
  const payload = { x402Version: 2, accepted, ...(terms.resource === undefined ? {} : { resource: terms.resource }), payload: { transaction } };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}
