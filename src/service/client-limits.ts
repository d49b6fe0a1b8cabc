/**
 * The per-client limits of the public listener (docs/operations.md#limits-per-client), built from
 * the options: the free bucket, the refused-payment bucket, which paths are paid and where MCP's
 * batches arrive. A pinned clock (tests) pins the buckets too: no refill, so what a test sees is exact.
 */
import { CATALOG } from '../catalog/endpoints.ts';
import type { Config } from '../config.ts';
import { type ClientAdmission, createClientAdmission } from '../http/admission/client-admission.ts';
import { MCP_PATH } from '../http/routes/mcp-route.ts';

type LimitOptions = Pick<
  Config,
  'freeRatePerSecond' | 'freeBurst' | 'freeBytesPerSecond' | 'freeBytesBurst' | 'failedPaymentRatePerSecond' | 'failedPaymentBurst'
>;

/** The service's admission rule from its options; `now` is the pinned clock of tests. */
export function createServiceAdmission(config: Readonly<LimitOptions>, now?: () => Date): ClientAdmission {
  return createClientAdmission({
    free: { ratePerSecond: config.freeRatePerSecond, burst: config.freeBurst },
    bytes: { ratePerSecond: config.freeBytesPerSecond, burst: config.freeBytesBurst },
    failed: { ratePerSecond: config.failedPaymentRatePerSecond, burst: config.failedPaymentBurst },
    paidPaths: new Set(CATALOG.map((e) => e.path)),
    callsPath: MCP_PATH,
    ...(now ? { now: () => now().getTime() } : {}),
  });
}
