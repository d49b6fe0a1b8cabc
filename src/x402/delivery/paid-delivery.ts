/**
 * What every paid answer carries once the money moved, whatever scheme paid for it: the
 * `PAYMENT-RESPONSE` header (x402's SettleResponse, also on a failed settlement's 402) and the
 * receipts (ours, which appends the ledger entry, and the x402 offer-receipt). Bookkeeping faults
 * here are reported, never allowed to withhold the 200 the caller paid for.
 */
import { commitEachAlone, type StagedWrite } from '../../durable/staged-write.ts';
import type { HttpReply } from '../../errors.ts';
import { RECEIPT_HEADER } from '../../receipts/receipt.ts';
import { LedgerAppendError, type ReceiptIssuer } from '../../receipts/receipt-issuer.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import type { PaidTiming } from './paid-timing.ts';
import type { PaidResource } from '../types/paid-call.ts';
import type { SettleResponse } from '../types/x402-types.ts';

/**
 * A paid 200's own headers, before its settlement's: JSON, and `private`. The answer, its
 * PAYMENT-RESPONSE and its receipt are one payer's: a shared cache (a CDN, a reverse proxy) must
 * not keep them for anyone else, while the payer's own cache may. The official x402 server merges
 * `private` into the handler's directives; ours answer with none of their own, so `private` is the
 * whole of it, and a constant: the paid path builds no string for it.
 */
export const PAID_ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'Content-Type': 'application/json', 'Cache-Control': 'private' });

/** Signs the x402 `offer-receipt` receipt of a paid answer: the settlement response's `extensions`, or null. */
export type ExtensionReceipt = (resourceUrl: string, payer: string, network: string) => Promise<Readonly<Record<string, unknown>> | null>;

/** What the receipts of a paid answer are issued with, and where their faults go. */
export interface ReceiptStampConfig {
  /** Signs the receipt and appends the ledger entry durably before the 200 leaves (docs/contract.md#receipts). */
  readonly receipts?: Pick<ReceiptIssuer, 'issue'>;
  /** The x402 extension receipt, signed beside ours (absent: none). */
  readonly extensionReceipt?: ExtensionReceipt;
  readonly fault: (what: string, err: unknown) => void;
}

/** base64 JSON x402 SettleResponse for the `PAYMENT-RESPONSE` header, with the extensions' answers when there are any. */
export function paymentResponseHeader(settled: SettleResult, extensions?: Readonly<Record<string, unknown>> | null): string {
  const body: SettleResponse = {
    success: settled.success,
    transaction: settled.transaction,
    network: settled.network,
    payer: settled.payer ?? '',
    ...(settled.extra ? { extra: settled.extra } : {}),
    ...(extensions ? { extensions } : {}),
  };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

/**
 * A failed settlement's 402 also carries `PAYMENT-RESPONSE` (success false, the x402 reason), as
 * the x402 HTTP transport shows; the MCP transport hands it on as `x402/payment-response`.
 */
export function withSettleFailure(reply: HttpReply, settled: SettleResult): HttpReply {
  const failure: SettleResponse = {
    success: false,
    errorReason: settled.errorReason ?? 'settlement_failed',
    transaction: settled.transaction,
    network: settled.network,
    payer: settled.payer ?? '',
  };
  return { ...reply, headers: { ...reply.headers, 'PAYMENT-RESPONSE': Buffer.from(JSON.stringify(failure)).toString('base64') } };
}

/** Who paid for what, as the x402 extension receipt names it: the resource URL the challenge named and the payer. */
export interface PaidBy {
  readonly resourceUrl: string;
  readonly payer: string;
}

/** A paid answer's receipts: our receipt's header, and the settlement response's `extensions` (the x402 one), each absent when it failed. */
export interface StampedReceipts {
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>> | null;
  /** With `keep`: whether its writes are durable (with the ledger entry, in one commit). */
  readonly kept?: boolean;
  /** With `keep.charge`, when the charge was not made: why (nothing of the call was written, no entry either). */
  readonly refused?: unknown;
}

/** Payment state that rides in the receipt's commit: staged from the stamped receipts (the kept 200 carries them). */
export interface KeepWith {
  readonly build: (stamped: StampedReceipts) => readonly StagedWrite[];
  /**
   * The call's charge (a voucher's), staged before the receipt: made with the ledger entry or
   * neither is (a charge another instance beat refuses the call before any entry exists).
   */
  readonly charge?: readonly StagedWrite[];
}

/** Issues the receipts of a paid answer (ours appends its ledger entry, with `keep`'s writes); a failure is reported, never thrown. */
export type ReceiptStamp = (
  paid: PaidResource,
  network: string,
  answer: HttpReply,
  timing?: PaidTiming,
  by?: PaidBy,
  keep?: KeepWith,
) => Promise<StampedReceipts>;

/** The receipt step every paid answer shares, whatever paid for it: both receipts are signed side by side in the pool. */
export function createReceiptStamp(config: ReceiptStampConfig): ReceiptStamp {
  /** Ours, with `keep`'s writes built from both receipts and committed with its ledger entry. */
  const ours = async (paid: PaidResource, network: string, answer: HttpReply, c: Ours): Promise<StampedReceipts> => {
    let extensions: StampedReceipts['extensions'] = null;
    const also = c.keep && {
      charge: c.keep.charge,
      keep: async (headerValue: string) => {
        extensions = await c.extension;
        return c.keep!.build({ headers: { [RECEIPT_HEADER]: headerValue }, extensions });
      },
    };
    try {
      const issued = await config.receipts!.issue({ ...paid, network, body: answer.body }, also || undefined);
      if (issued.phases) {
        c.timing?.add('receipt', issued.phases.receiptMs);
        c.timing?.add('ledger', issued.phases.ledgerMs);
      }
      const headers = { [RECEIPT_HEADER]: issued.headerValue };
      return { headers, extensions: c.keep ? extensions : await c.extension, ...(c.keep ? { kept: issued.kept === true } : {}) };
    } catch (err) {
      // Refused with its charge: nothing was settled, the caller of the stamp refuses the call.
      if (c.keep?.charge && err instanceof LedgerAppendError) return { headers: {}, extensions: await c.extension, kept: false, refused: err.reason };
      config.fault(`receipt or ledger entry failed after settlement of a paid ${paid.endpoint} answer; answering without a receipt`, err);
      return { headers: {}, extensions: await c.extension, ...(c.keep ? { kept: false } : {}) };
    }
  };
  /** No receipts: `keep`'s writes are committed on their own. */
  const bare = async (c: Ours): Promise<StampedReceipts> => {
    const extensions = await c.extension;
    if (!c.keep) return { headers: {}, extensions };
    const stamped = { headers: {}, extensions };
    // The charge first, alone: the writes built on it (the kept answer at its revision) follow it.
    const refused = await commitEachAlone(c.keep.charge ?? []).then(
      () => undefined,
      (err: unknown) => err ?? new Error('the charge was not made'),
    );
    if (refused !== undefined) return { ...stamped, kept: false, refused };
    const kept = await commitEachAlone(c.keep.build(stamped)).then(
      () => true,
      () => false,
    );
    return { ...stamped, kept };
  };
  return (paid, network, answer, timing, by, keep) => {
    const extension = config.extensionReceipt && by?.payer ? config.extensionReceipt(by.resourceUrl, by.payer, network) : Promise.resolve(null);
    const c = { extension, timing, keep };
    return config.receipts ? ours(paid, network, answer, c) : bare(c);
  };
}

interface Ours {
  readonly extension: Promise<Readonly<Record<string, unknown>> | null>;
  readonly timing?: PaidTiming;
  readonly keep?: KeepWith;
}
