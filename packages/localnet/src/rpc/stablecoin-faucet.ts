/**
 * The localnet's stablecoin faucet: creates the owner's associated token account (idempotent)
 * and mints to it in one real transaction signed by the mint authority, so the funding shows
 * up in history and balances exactly like any transfer.
 */
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
} from '@solana/kit';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getMintToCheckedInstruction } from '@solana-program/token';
import type { LocalChain } from '../chain/local-chain.ts';
import type { StablecoinFaucetConfig } from './rpc-context.ts';
import { RpcError, RPC_CODES } from './rpc-params.ts';
import { classifyTokenData, parseMintBase } from '../encoding/token-layout.ts';
import { describeTransactionError } from '../chain/transaction-error.ts';

/** Below this the mint authority gets SOL from the chain faucet to pay fees and ATA rent. */
const MIN_AUTHORITY_LAMPORTS = 100_000_000n;
const AUTHORITY_TOP_UP_LAMPORTS = 10_000_000_000n;

/** Funds `owner` with `amount` base units of the stablecoin; returns the transaction signature. */
export async function fundStablecoin(chain: LocalChain, faucet: StablecoinFaucetConfig, owner: string, amount: bigint): Promise<string> {
  const mintAccount = chain.getAccount(faucet.mint);
  if (!mintAccount || classifyTokenData(mintAccount.owner, mintAccount.data) !== 'mint') {
    throw new RpcError(RPC_CODES.internalError, `stablecoin mint ${faucet.mint} does not exist on the localnet`);
  }
  const tokenProgram = toAddress(mintAccount.owner);
  const { decimals } = parseMintBase(mintAccount.data);
  const authority = faucet.mintAuthority;
  if ((chain.getAccount(authority.address)?.lamports ?? 0n) < MIN_AUTHORITY_LAMPORTS) chain.airdrop(authority.address, AUTHORITY_TOP_UP_LAMPORTS);
  const [ata] = await findAssociatedTokenPda({ owner: toAddress(owner), mint: toAddress(faucet.mint), tokenProgram });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(authority, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: chain.latestBlockhash('processed').blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata, owner: toAddress(owner), mint: toAddress(faucet.mint), tokenProgram }),
          getMintToCheckedInstruction(
            { mint: toAddress(faucet.mint), token: ata, mintAuthority: authority, amount, decimals },
            { programAddress: tokenProgram },
          ),
        ],
        m,
      ),
  );
  const wire = Uint8Array.from(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
  const result = chain.sendTransaction(wire);
  if (!result.ok) throw new RpcError(RPC_CODES.internalError, `stablecoin funding rejected: ${describeTransactionError(result.err)}`);
  if (result.tx.err !== null)
    throw new RpcError(RPC_CODES.internalError, `stablecoin funding failed: ${describeTransactionError(result.tx.err)}`, {
      signature: result.signature,
      logs: result.tx.logs,
    });
  return result.signature;
}
