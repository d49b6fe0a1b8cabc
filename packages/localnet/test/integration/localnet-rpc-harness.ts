/**
 * Shared setup of the localnet RPC integration tests: a chain with a stablecoin mint, the RPC
 * server on an ephemeral port, a slot ticker so commitments advance, and kit helpers.
 */
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getMintEncoder, getMintSize } from '@solana-program/token';
import { createLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import { startRpcServer, type RpcServer } from '../../src/rpc/rpc-server.ts';
import { SPL_TOKEN_PROGRAM_ID } from '../../src/encoding/token-layout.ts';
import { vi } from 'vitest';

/** Slot length of the test chain's ticker. */
export const TEST_SLOT_MS = 40;

/** A running localnet RPC for one test file. */
export interface Harness {
  readonly chain: LocalChain;
  readonly server: RpcServer;
  readonly rpc: Rpc<SolanaRpcApi>;
  readonly stablecoinMint: string;
  /** A mint configured as excluded from secondary indexes. */
  readonly excludedMint: string;
  stop(): Promise<void>;
}

/** Starts chain, stablecoin mint, server and slot ticker. */
export async function startHarness(): Promise<Harness> {
  const chain = createLocalChain({ slotsPerEpoch: 32n, startUnixSeconds: 1_750_000_000, slotMs: 400 });
  const authority = await generateKeyPairSigner();
  const mint = await generateKeyPairSigner();
  const data = Uint8Array.from(
    getMintEncoder().encode({
      mintAuthority: authority.address,
      supply: 0n,
      decimals: 6,
      isInitialized: true,
      freezeAuthority: null,
    }),
  );
  chain.setAccount(mint.address, { lamports: chain.minimumBalanceForRentExemption(getMintSize()), data, owner: SPL_TOKEN_PROGRAM_ID });
  const excluded = await generateKeyPairSigner();
  chain.setAccount(excluded.address, { lamports: chain.minimumBalanceForRentExemption(getMintSize()), data, owner: SPL_TOKEN_PROGRAM_ID });
  const server = await startRpcServer({
    chain,
    port: 0,
    faucet: { mint: mint.address, mintAuthority: authority },
    excludedFromSecondaryIndexes: [excluded.address],
  });
  const ticker = setInterval(() => chain.advanceSlot(), TEST_SLOT_MS);
  return {
    chain,
    server,
    rpc: createSolanaRpc(server.url) as Rpc<SolanaRpcApi>,
    stablecoinMint: mint.address,
    excludedMint: excluded.address,
    async stop() {
      clearInterval(ticker);
      await server.close();
    },
  };
}

/** Builds, signs and base64-encodes a v0 transaction with the processed blockhash. */
export async function signedBase64(h: Harness, payer: KeyPairSigner, ixs: readonly Instruction[]): Promise<string> {
  const { value } = await h.rpc.getLatestBlockhash({ commitment: 'processed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(value, m),
    (m) => appendTransactionMessageInstructions(ixs, m),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
}

/** Polls getSignatureStatuses until the signature reaches `level`. */
export async function waitFor(h: Harness, signature: string, level: 'confirmed' | 'finalized' = 'confirmed'): Promise<void> {
  const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
  const reached = async (): Promise<boolean> => {
    const { value } = await h.rpc.getSignatureStatuses([signature as Signature]).send();
    const status = value[0]?.confirmationStatus;
    return status !== null && status !== undefined && rank[status] >= rank[level];
  };
  await vi.waitUntil(reached, { timeout: 100 * TEST_SLOT_MS, interval: TEST_SLOT_MS / 2 }).catch(() => {
    throw new Error(`signature ${signature} never reached ${level}`);
  });
}

/** Raw JSON-RPC POST (for batches and malformed input). */
export async function rawPost(h: Harness, body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(h.server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, json: text.length > 0 ? JSON.parse(text) : null };
}

/** A funded fresh keypair. */
export async function fundedSigner(h: Harness, lamports = 10_000_000_000n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  const sig = await h.rpc.requestAirdrop(signer.address, lamports as never).send();
  await waitFor(h, sig);
  return signer;
}
