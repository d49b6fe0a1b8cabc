/**
 * A receipt's tlog-proof kept beside it (`<stem>.tlog-proof`, c2sp.org/tlog-proof@v1): fetched from
 * `/trust/tlog-proof` right after the call, waiting while the service answers 503
 * checkpoint_pending (its witnesses have not yet cosigned a checkpoint holding the entry) for the
 * Retry-After it names, within TLOG_PROOF_WAIT_MS. verify-receipt --policy reads it offline.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { TLOG_PROOF_SUFFIX } from '../receipt-checks/tlog-proof.ts';
import { RECEIPT_SUFFIX } from './receipt-files.ts';
import { request, serviceError } from './service-http.ts';
import { serviceHref } from './service-url.ts';

/** How long `call` waits for a cosigned checkpoint holding its entry, ms. */
export const TLOG_PROOF_WAIT_MS = 30_000;
const MAX_RETRY_AFTER_S = 5;

/** The tlog-proof file of a saved receipt file. */
export function tlogProofFileFor(receiptFile: string): string {
  const stem = receiptFile.endsWith(RECEIPT_SUFFIX) ? receiptFile.slice(0, -RECEIPT_SUFFIX.length) : receiptFile;
  return stem + TLOG_PROOF_SUFFIX;
}

/** The proof text of ledger entry `index`, waiting out checkpoint_pending; throws the service's error otherwise. */
export async function fetchTlogProof(base: string, index: number, waitMs = TLOG_PROOF_WAIT_MS): Promise<string> {
  const href = serviceHref(base, `/trust/tlog-proof?index=${index}`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await request(href, { headers: { accept: 'text/plain' } });
    if (answer.status === 200) return new TextDecoder().decode(answer.bytes);
    const pending = answer.status === 503 && (answer.json as { error?: unknown } | undefined)?.error === 'checkpoint_pending';
    const retryS = Math.min(MAX_RETRY_AFTER_S, Math.max(1, Number(answer.headers.get('retry-after')) || 1));
    if (!pending || Date.now() + retryS * 1000 > deadline) throw serviceError(answer, href);
    await sleep(retryS * 1000);
  }
}

/** Writes the proof beside the receipt (never over another file); returns its path. */
export function saveTlogProof(receiptFile: string, text: string): string {
  const path = tlogProofFileFor(receiptFile);
  writeFileSync(path, text, { flag: 'wx' });
  return path;
}
