/**
 * The Solana scheme's settlement registers its signature on the watch before it sends: a
 * confirmation the stream delivers while the send is still in flight (here, before the send even
 * answers) settles the payment with no status query; the entry is released after every outcome;
 * without a watch the RPC is polled as before. The co-signature runs in the real worker pool.
 */
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { RpcClient, SendOutcome, SignatureStatus } from '../../../src/chain/solana/rpc-client.ts';
import { createSignatureWatch, type SignatureWatch } from '../../../src/chain/geyser/signature-watch.ts';
import { createWorkerPool } from '../../../src/pool/worker-pool.ts';
import { createSvmExactScheme } from '../../../src/x402/exact-svm/svm-exact.ts';
import type { PaymentPayload, PaymentRequirements } from '../../../src/x402/types/x402-types.ts';
import { SOLANA_MAINNET_CAIP2 } from '../../../src/x402/types/x402-types.ts';
import type { PoolTasks } from '../../../workers/pool-worker.ts';
import { landed } from '../../helpers/stream-signatures.ts';
import { buildPaymentTx } from '../../helpers/svm-payer.ts';

const seed = new Uint8Array(randomBytes(32));
const pool = createWorkerPool<PoolTasks>({ size: 1, identitySeed: seed });
afterAll(() => pool.close());
const signal = new AbortController().signal;
// Any well-formed addresses: settlement checks none of them (verification did, before).
const SOME_ADDRESS = 'So11111111111111111111111111111111111111112';

async function payment(feePayer: string): Promise<{ payment: PaymentPayload; requirements: PaymentRequirements }> {
  const payerSeed = new Uint8Array(randomBytes(32));
  const payer = { signer: await createKeyPairSignerFromPrivateKeyBytes(payerSeed), seed: payerSeed };
  const transaction = await buildPaymentTx({ payer, feePayer, mint: SOME_ADDRESS, payTo: SOME_ADDRESS, amount: 1000n, blockhash: SOME_ADDRESS });
  const requirements = {
    scheme: 'exact',
    network: SOLANA_MAINNET_CAIP2,
    amount: '1000',
    asset: SOME_ADDRESS,
    payTo: SOME_ADDRESS,
    maxTimeoutSeconds: 60,
    extra: { feePayer },
  } as PaymentRequirements;
  return {
    payment: { x402Version: 2, accepted: requirements, resource: { url: 'http://x/v1/epoch' }, payload: { transaction } } as PaymentPayload,
    requirements,
  };
}

/** Settled without a verification here, so the payer's token account is read before signing: it holds enough. */
async function payerTokenAccount() {
  const data = new Uint8Array(165);
  Buffer.from(data.buffer).writeBigUInt64LE(1_000_000n, 64);
  return { owner: SOME_ADDRESS, lamports: 1n, data };
}

/**
 * An RPC whose send hands the transaction to the stream at once (its confirmation arrives before
 * the send's answer does) and whose status queries are counted, answering `status`.
 */
function rpcStreamingOnSend(watch: SignatureWatch | null, status: SignatureStatus | null) {
  const counts = { polls: 0 };
  const rpc = {
    async sendTransaction(wireBase64: string): Promise<SendOutcome> {
      const wire = Buffer.from(wireBase64, 'base64');
      // One compact-u16 length byte, then the fee payer's signature: the transaction's id.
      watch?.feed.onTransaction(321, landed(wire.subarray(1, 65)));
      return { ok: true, signature: '' };
    },
    async getSignatureStatus() {
      counts.polls++;
      return status;
    },
    getAccountInfo: payerTokenAccount,
  };
  return { rpc: rpc as unknown as RpcClient, counts };
}

describe('settlement and the signature watch', () => {
  it('a confirmation streamed before the send answers is not missed: settled with no status query, entry released', async () => {
    const feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    const watch = createSignatureWatch({ isLive: () => true });
    const { rpc, counts } = rpcStreamingOnSend(watch, null);
    const scheme = createSvmExactScheme({ network: SOLANA_MAINNET_CAIP2, feePayer, rpc, pool, signatures: watch });
    const { payment: p, requirements } = await payment(feePayer);
    let watchedAtBroadcast = -1;
    const settled = await scheme.settle(p, requirements, signal, async () => {
      watchedAtBroadcast = watch.size;
    });
    expect(settled).toMatchObject({ success: true, payer: expect.any(String) });
    expect(counts.polls).toBe(0);
    // Registered after the pending record (beforeBroadcast), before the send: none at that point, none left after.
    expect(watchedAtBroadcast).toBe(0);
    expect(watch.size).toBe(0);
  });

  it('without a watch, the RPC decides (polled as before)', async () => {
    const feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    const { rpc, counts } = rpcStreamingOnSend(null, { confirmationStatus: 'confirmed', err: null, slot: 9 });
    const scheme = createSvmExactScheme({ network: SOLANA_MAINNET_CAIP2, feePayer, rpc, pool });
    const { payment: p, requirements } = await payment(feePayer);
    expect(await scheme.settle(p, requirements, signal)).toMatchObject({ success: true });
    expect(counts.polls).toBe(1);
  });

  it('a send the node refuses releases the entry too (its preflight refusal read as a failed simulation)', async () => {
    const feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    const watch = createSignatureWatch({ isLive: () => true });
    const rpc = {
      sendTransaction: async (): Promise<SendOutcome> => ({ ok: false, code: -32002, message: 'Blockhash not found' }),
      getAccountInfo: payerTokenAccount,
    } as unknown as RpcClient;
    const scheme = createSvmExactScheme({ network: SOLANA_MAINNET_CAIP2, feePayer, rpc, pool, signatures: watch });
    const { payment: p, requirements } = await payment(feePayer);
    expect(await scheme.settle(p, requirements, signal)).toMatchObject({ success: false, errorReason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(watch.size).toBe(0);
  });
});
