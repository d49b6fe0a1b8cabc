/** An early answer's payment that failed on chain after its answer left, as the early answers' book records it. */
import type { EarlyFailure } from '../../src/x402/stores/early-book.ts';

/** `payer`'s failed payment of one `/v1/tipfloor` call, failed at `at` (ms). */
export const earlyFailure = (payer: string, at: number): EarlyFailure => ({
  status: 'failed',
  network: 'solana:x',
  transaction: 'sig',
  payer,
  endpoint: '/v1/tipfloor',
  priceUsdcUnits: 1_000,
  receiptSha256: null,
  ledgerIndex: null,
  reason: 'invalid_exact_svm_transaction_failed',
  message: 'drained',
  failedAt: at,
});
