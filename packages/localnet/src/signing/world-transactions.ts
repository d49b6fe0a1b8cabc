/**
 * Builds signed legacy wire transactions from kit instructions with the world's synchronous
 * signers, so world building and the block producer submit real signed transactions to the chain
 * exactly as a client would.
 */
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  compileTransactionMessage,
  createNoopSigner,
  createTransactionMessage,
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
  type SignatureBytes,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getInitializeAccount3Instruction, getInitializeMint2Instruction, getMintToInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { encodeBase58 } from '../encoding/base58.ts';
import type { WorldSigner } from './world-keys.ts';

/** Kit's codecs are stateless: built once, not per transaction (their construction was a fifth of a signed wire's CPU). */
const MESSAGE_ENCODER = getCompiledTransactionMessageEncoder();
const TRANSACTION_ENCODER = getTransactionEncoder();

/** A signed transaction ready for `sendTransaction`. */
export interface SignedWire {
  readonly wire: Uint8Array;
  /** Base58 of the fee payer's signature (the transaction id). */
  readonly signature: string;
}

/** Signs a legacy message of `instructions` paid by `feePayer`; `signers` must cover every signer role. */
export function buildSignedWire(
  feePayer: WorldSigner,
  instructions: readonly Instruction[],
  blockhash: string,
  signers: readonly WorldSigner[] = [],
): SignedWire {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(toAddress(feePayer.address), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransactionMessage(message);
  const messageBytes = MESSAGE_ENCODER.encode(compiled);
  const bySigner = new Map([feePayer, ...signers].map((s) => [s.address, s]));
  const signatures: Record<string, SignatureBytes> = {};
  // The wire lists signatures in the order of the first `numSignerAccounts` static keys.
  for (const key of compiled.staticAccounts.slice(0, compiled.header.numSignerAccounts)) {
    const signer = bySigner.get(key);
    if (signer === undefined) throw new Error(`no signer for ${key}`);
    signatures[key] = signer.sign(Uint8Array.from(messageBytes)) as SignatureBytes;
  }
  const tx = { messageBytes, signatures } as unknown as Transaction;
  const wire = Uint8Array.from(TRANSACTION_ENCODER.encode(tx));
  const first = signatures[feePayer.address];
  if (first === undefined) throw new Error('fee payer did not sign');
  return { wire, signature: encodeBase58(first) };
}

/** A signer role for `address` in an instruction (the key signs later, in `buildSignedWire`). */
export function signerRole(address: string): TransactionSigner {
  return createNoopSigner(toAddress(address));
}

/** System transfer instruction. */
export function transferSolIx(from: string, to: string, lamports: bigint): Instruction {
  return getTransferSolInstruction({ source: signerRole(from), destination: toAddress(to), amount: lamports });
}

/** TransferChecked for SPL Token or Token-2022 (`programId`). */
export function transferCheckedIx(args: {
  readonly source: string;
  readonly mint: string;
  readonly destination: string;
  readonly authority: string;
  readonly amount: bigint;
  readonly decimals: number;
  readonly programId: string;
}): Instruction {
  return getTransferCheckedInstruction(
    {
      source: toAddress(args.source),
      mint: toAddress(args.mint),
      destination: toAddress(args.destination),
      authority: signerRole(args.authority),
      amount: args.amount,
      decimals: args.decimals,
    },
    { programAddress: toAddress(args.programId) },
  );
}

/** Compute-budget instructions: a unit limit and a price in micro-lamports per unit. */
export function computeBudgetIxs(unitLimit: number, microLamportsPerUnit: bigint): Instruction[] {
  return [getSetComputeUnitLimitInstruction({ units: unitLimit }), getSetComputeUnitPriceInstruction({ microLamports: microLamportsPerUnit })];
}

/** System CreateAccount of `space` bytes owned by `owner`; both `payer` and `account` sign. */
export function createAccountIx(payer: string, account: string, lamports: bigint, space: number, owner: string): Instruction {
  return getCreateAccountInstruction({ payer: signerRole(payer), newAccount: signerRole(account), lamports, space, programAddress: toAddress(owner) });
}

/** InitializeMint2 (no freeze authority) under `programId`. */
export function initializeMintIx(mint: string, decimals: number, mintAuthority: string, programId: string): Instruction {
  return getInitializeMint2Instruction({ mint: toAddress(mint), decimals, mintAuthority: toAddress(mintAuthority) }, { programAddress: toAddress(programId) });
}

/** InitializeAccount3: a token account of `mint` owned by `owner` (who need not sign). */
export function initializeTokenAccountIx(account: string, mint: string, owner: string, programId: string): Instruction {
  return getInitializeAccount3Instruction(
    { account: toAddress(account), mint: toAddress(mint), owner: toAddress(owner) },
    { programAddress: toAddress(programId) },
  );
}

/** MintTo signed by the mint authority. */
export function mintToIx(mint: string, destination: string, authority: string, amount: bigint, programId: string): Instruction {
  return getMintToInstruction(
    { mint: toAddress(mint), token: toAddress(destination), mintAuthority: signerRole(authority), amount },
    { programAddress: toAddress(programId) },
  );
}
