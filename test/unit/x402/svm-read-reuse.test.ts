/**
 * The Solana scheme reuses a source's checked read for one slot (source-budget.ts): a payer
 * empties its token account outside right after a read, then pays again inside that slot. The
 * reused read lets the payment through verification, but the send's preflight refuses it with the
 * reason a read would have given (nothing broadcast, no fee), and the read is forgotten, so the
 * payer's next payment reads the chain and is refused at verification. The chain is a fake RPC
 * whose send runs the preflight's balance check; signatures run in the real worker pool.
 */
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBase58 } from '../../../src/chain/solana/base58.ts';
import type { RpcClient, SendOutcome } from '../../../src/chain/solana/rpc-client.ts';
import { createWorkerPool } from '../../../src/pool/worker-pool.ts';
import { TOKEN_PROGRAM } from '../../../src/x402/exact-svm/svm-rules.ts';
import { createSvmExactScheme } from '../../../src/x402/exact-svm/svm-exact.ts';
import { createSourceBudget, READ_REUSE_MS } from '../../../src/x402/stores/source-budget.ts';
import type { PaymentPayload, PaymentRequirements } from '../../../src/x402/types/x402-types.ts';
import { SOLANA_MAINNET_CAIP2 } from '../../../src/x402/types/x402-types.ts';
import type { PoolTasks } from '../../../workers/pool-worker.ts';
import { manualClock } from '../../helpers/manual-clock.ts';
import { buildPaymentTx, type TestPayer } from '../../helpers/svm-payer.ts';

const seed = new Uint8Array(randomBytes(32));
const pool = createWorkerPool<PoolTasks>({ size: 1, identitySeed: seed });
afterAll(() => pool.close());
const signal = new AbortController().signal;
const MINT = 'So11111111111111111111111111111111111111112';
const PAY_TO = 'Vote111111111111111111111111111111111111111';
const PRICE = 1000n;
const SIMULATION_FAILED = 'invalid_exact_svm_transaction_simulation_failed';

/** One token account on a fake chain: reads are counted, and a send runs the preflight's balance check. */
function fakeChain(balance: bigint) {
  const chain = { balance, reads: 0, broadcasts: 0, fees: 0 };
  const rpc = {
    async getAccountInfo(address: string) {
      // The mint, read once for its decimals (a Token mint's base layout, decimals at byte 44): not the source's read.
      if (address === MINT) return { owner: TOKEN_PROGRAM, lamports: 1_461_600n, data: Uint8Array.from({ length: 82 }, (_, i) => (i === 44 ? 6 : 0)) };
      chain.reads++;
      const data = new Uint8Array(165);
      data.set(decodeBase58(MINT)!, 0);
      Buffer.from(data.buffer).writeBigUInt64LE(chain.balance, 64);
      data[108] = 1;
      return { owner: TOKEN_PROGRAM, lamports: 2_039_280n, data };
    },
    async sendTransaction(): Promise<SendOutcome> {
      if (chain.balance < PRICE)
        return { ok: false, code: -32002, message: 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1' };
      chain.balance -= PRICE;
      chain.broadcasts++;
      return { ok: true, signature: '' };
    },
    getSignatureStatus: async () => ({ confirmationStatus: 'confirmed', err: null, slot: 9 }),
  };
  return { chain, rpc: rpc as unknown as RpcClient };
}

async function paymentOf(payer: TestPayer, feePayer: string): Promise<{ payment: PaymentPayload; requirements: PaymentRequirements }> {
  const transaction = await buildPaymentTx({ payer, feePayer, mint: MINT, payTo: PAY_TO, amount: PRICE, blockhash: MINT });
  const requirements = {
    scheme: 'exact',
    network: SOLANA_MAINNET_CAIP2,
    amount: String(PRICE),
    asset: MINT,
    payTo: PAY_TO,
    maxTimeoutSeconds: 60,
    extra: { feePayer },
  } as PaymentRequirements;
  return {
    payment: { x402Version: 2, accepted: requirements, resource: { url: 'http://x/v1/tipfloor' }, payload: { transaction } } as PaymentPayload,
    requirements,
  };
}

describe('a reused read of the source, and a payer who empties its account inside its slot', () => {
  it('the payment the reused read let through is refused by the preflight (same reason, nothing sent), and the next one reads the chain', async () => {
    const feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    const payerSeed = new Uint8Array(randomBytes(32));
    const payer = { signer: await createKeyPairSignerFromPrivateKeyBytes(payerSeed), seed: payerSeed };
    const clock = manualClock();
    const { chain, rpc } = fakeChain(5n * PRICE);
    const fees: unknown[] = [];
    const scheme = createSvmExactScheme({
      network: SOLANA_MAINNET_CAIP2,
      feePayer,
      rpc,
      pool,
      sources: createSourceBudget({ now: clock.now }),
      onFee: (f) => fees.push(f),
    });
    const pay = async () => {
      const { payment, requirements } = await paymentOf(payer, feePayer);
      const verified = await scheme.verify(payment, requirements, signal);
      return { verified, settle: () => scheme.settle(payment, requirements, signal) };
    };

    const first = await pay();
    expect(first.verified.isValid).toBe(true);
    expect(chain.reads).toBe(1);
    expect(await first.settle()).toMatchObject({ success: true });
    // Inside the slot a second payment is served by that read: no chain read.
    clock.advance(READ_REUSE_MS / 4);
    const second = await pay();
    expect(second.verified).toMatchObject({ isValid: true });
    expect(chain.reads).toBe(1);
    // The payer empties its account outside, then the payment the reused read let through settles.
    chain.balance = 0n;
    expect(await second.settle()).toMatchObject({ success: false, errorReason: SIMULATION_FAILED, refused: true });
    expect(chain.broadcasts).toBe(1);
    expect(fees).toHaveLength(1);
    // Still inside the slot: the read was forgotten, so the next payment reads the chain and is refused there.
    clock.advance(READ_REUSE_MS / 4);
    const third = await pay();
    expect(chain.reads).toBe(2);
    expect(third.verified).toMatchObject({ isValid: false, invalidReason: SIMULATION_FAILED });
  }, 30_000);

  it('a read older than its slot is not reused', async () => {
    const feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    const payerSeed = new Uint8Array(randomBytes(32));
    const payer = { signer: await createKeyPairSignerFromPrivateKeyBytes(payerSeed), seed: payerSeed };
    const clock = manualClock();
    const { chain, rpc } = fakeChain(5n * PRICE);
    const scheme = createSvmExactScheme({ network: SOLANA_MAINNET_CAIP2, feePayer, rpc, pool, sources: createSourceBudget({ now: clock.now }) });
    for (const wait of [0, READ_REUSE_MS + 1]) {
      clock.advance(wait);
      const { payment, requirements } = await paymentOf(payer, feePayer);
      expect((await scheme.verify(payment, requirements, signal)).isValid).toBe(true);
    }
    expect(chain.reads).toBe(2);
  }, 30_000);
});
