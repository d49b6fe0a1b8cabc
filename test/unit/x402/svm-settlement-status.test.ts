/**
 * Where a pending Solana settlement stands when its retry asks (src/x402/exact-svm/svm-settlement-status.ts),
 * over an RPC that behaves as a cluster's does: `getSignatureStatuses` answers from the node's
 * recent status cache (about 300 slots, two minutes) unless `searchTransactionHistory` is asked,
 * and the blockhash of a transaction is valid for about 150 slots. A payment that landed and is
 * asked about after its status left the cache must not read as "never landed": that answer frees
 * the payment to be made again and refuses its call, though the payer was charged.
 */
import { describe, expect, it } from 'vitest';
import type { SignatureStatus } from '../../../src/chain/solana/rpc-client.ts';
import { createSvmSettlementStatus } from '../../../src/x402/exact-svm/svm-settlement-status.ts';
import type { PaymentPayload, PaymentRequirements } from '../../../src/x402/types/x402-types.ts';

const payment = { x402Version: 2, payload: { transaction: Buffer.from('a signed transaction').toString('base64') } } as unknown as PaymentPayload;
const requirements = {} as PaymentRequirements;

/** A cluster's RPC after the blockhash expired; `landed`: the transaction's status in the ledger (null: it never landed). */
function clusterRpc(landed: SignatureStatus | null, inCache: boolean) {
  const asked: Array<boolean> = [];
  return {
    asked,
    rpc: {
      simulateTransaction: async () => ({ ok: true as const, err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 }),
      async getSignatureStatus(_signature: string, _signal?: AbortSignal, options?: { readonly searchHistory?: boolean }) {
        asked.push(options?.searchHistory === true);
        return inCache || options?.searchHistory ? landed : null;
      },
    },
  };
}

const status = (rpc: ReturnType<typeof clusterRpc>['rpc']) =>
  createSvmSettlementStatus(rpc as never, 'confirmed')(payment, requirements, 'sig', new AbortController().signal);

describe('a pending Solana settlement asked about after its blockhash expired', () => {
  it('landed, its status gone from the recent cache: landed (the ledger is searched), not "never landed"', async () => {
    const { rpc } = clusterRpc({ confirmationStatus: 'finalized', err: null, slot: 7 }, false);
    expect(await status(rpc)).toEqual({ status: 'landed' });
  });

  it('failed on chain, its status gone from the recent cache: failed on chain, not "never landed" (which bars nobody)', async () => {
    const { rpc } = clusterRpc({ confirmationStatus: 'finalized', err: { InstructionError: [2, { Custom: 1 }] }, slot: 7 }, false);
    expect(await status(rpc)).toMatchObject({ status: 'failed', reason: 'invalid_exact_svm_transaction_failed' });
  });

  it('never landed: never landed, asked of the ledger once, only then', async () => {
    const { rpc, asked } = clusterRpc(null, false);
    expect(await status(rpc)).toMatchObject({ status: 'failed', neverLanded: true });
    expect(asked).toEqual([false, true]);
  });

  it('in the recent cache: one read, no search of the ledger', async () => {
    const { rpc, asked } = clusterRpc({ confirmationStatus: 'confirmed', err: null, slot: 7 }, true);
    expect(await status(rpc)).toEqual({ status: 'landed' });
    expect(asked).toEqual([false]);
  });
});
