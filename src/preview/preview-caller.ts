/**
 * One free preview of a paid endpoint (docs/preview.md): validated exactly like the paid call
 * (400 naming the parameter, quota untouched), refused while paid calls are stopped (503), then
 * the client's daily claim, the real paid handler, and its answer cut by the endpoint's preview
 * rule. Only a 200 uses the day's preview: the claim is released on any other outcome. No
 * payment, no receipt, no ledger entry. With the quota in the database a fault of its claim or
 * record answers 503 `database_unavailable`, and no preview goes out unrecorded.
 *
 * A `HEAD` is safe (RFC 9110 9.2.1): it says whether a preview would be given now (the 200's head,
 * or the 429 with its `Retry-After`) and uses nothing: its claim is given back at once and the
 * handler never runs. Spending the day on a HEAD let a link checker or a CDN's probe take a
 * person's preview, and ran the endpoint's upstreams for an answer nobody reads.
 */
import type { EndpointEntry } from '../catalog/endpoints.ts';
import { validateQuery } from '../catalog/validate-query.ts';
import { errorReply, type HttpReply, ServiceError } from '../errors.ts';
import type { PaidHandler, PaidHandlerLookup } from '../intel/handler-group.ts';
import { poolBusyReply } from '../pool/worker-pool.ts';
import type { PreviewQuota, RefusedClaim } from './preview-quota.ts';
import { truncateAnswer } from './truncate-answer.ts';

export interface PreviewCallerConfig {
  /** The same handlers the paid routes run. */
  readonly handlers: PaidHandlerLookup;
  /** Why paid calls are refused right now (kill switch, ledger failure), or null; previews stop with them. */
  readonly stopped: () => string | null;
  readonly quota: PreviewQuota;
  /** True while the CPU pool's queue is full: the preview answers 503 `busy`, its quota untouched. */
  readonly busy?: () => boolean;
}

/** One preview request as the transport received it. */
export interface PreviewAttempt {
  readonly entry: EndpointEntry;
  /** The query string (without `?`). */
  readonly query: string;
  /** The client's address as the connection shows it (the quota's key). */
  readonly remoteIp: string;
  /** Fires when the client goes away: the claim is then released. */
  readonly signal: AbortSignal;
  /** A HEAD: the 200 or 429 a GET would get now, with an empty body, and nothing used. */
  readonly head?: boolean;
}

export type PreviewCaller = (attempt: PreviewAttempt) => Promise<HttpReply>;

const NO_STORE = { 'Cache-Control': 'no-store' };

/** `2026-11-25T00:00:00Z`: a midnight needs no milliseconds. */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function refusalMessage(refused: RefusedClaim, entry: EndpointEntry): string {
  const at = isoSeconds(refused.nextPreviewAt);
  const why =
    refused.reason === 'capacity'
      ? `the service's free preview capacity for this UTC day is used up; previews open again at ${at}`
      : refused.reason === 'in_flight'
        ? `a preview for this client is already running; one free preview per client per UTC day; the next is available at ${at}`
        : `one free preview per client per UTC day; the next is available at ${at}`;
  return `${why}. To call now, pay for GET ${entry.path} (x402, see /.well-known/x402).`;
}

/** The 429 of a refused claim: `Retry-After` and the machine-readable time of the next preview. */
export function previewLimitReply(refused: RefusedClaim, entry: EndpointEntry): HttpReply {
  return errorReply(
    {
      error: 'preview_limit_reached',
      message: refusalMessage(refused, entry),
      retryAfterSeconds: refused.retryAfterSeconds,
      nextPreviewAt: isoSeconds(refused.nextPreviewAt),
    },
    { 'Retry-After': String(refused.retryAfterSeconds), ...NO_STORE },
  );
}

/** Creates the preview caller over the paid handlers and the daily quota. */
export function createPreviewCaller(config: PreviewCallerConfig): PreviewCaller {
  return async ({ entry, query, remoteIp, signal, head = false }) => {
    const checked = validateQuery(entry, query);
    if (!checked.ok) return errorReply(checked.error);
    const stopped = config.stopped() ?? config.quota.failure();
    if (stopped !== null) return errorReply({ error: 'service_stopped', message: stopped });
    if (config.busy?.()) return poolBusyReply();
    const handler: PaidHandler | undefined = config.handlers[entry.path as keyof PaidHandlerLookup];
    if (!handler) return errorReply({ error: 'upstream_unavailable', message: `${entry.path} has no data source in this deployment` });
    // The file quota decides at once; the database's claim is one statement, awaited (a fault rejects: 503).
    const pending = config.quota.claim(remoteIp);
    const claim = pending instanceof Promise ? await pending : pending;
    if (!claim.ok) return previewLimitReply(claim, entry);
    if (head) {
      claim.release();
      return { status: 200, headers: { 'Content-Type': 'application/json', ...NO_STORE }, body: '' };
    }
    let body: string;
    try {
      const answer = await handler(checked.value, signal);
      signal.throwIfAborted();
      body = JSON.stringify(truncateAnswer(answer, entry.preview));
    } catch (err) {
      claim.release();
      throw err;
    }
    try {
      await claim.commit();
    } catch (err) {
      // Not recorded, so not answered: the database's fault as itself, the file's as a stop.
      if (err instanceof ServiceError) return errorReply(err.body);
      return errorReply({ error: 'service_stopped', message: config.quota.failure() ?? 'the preview could not be recorded' });
    }
    return { status: 200, headers: { 'Content-Type': 'application/json', ...NO_STORE }, body };
  };
}
