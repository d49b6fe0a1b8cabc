/**
 * What the console says about a free preview that did not answer 200, from the error body the
 * service sends (`{error, message, param?}`; on 429 also `retryAfterSeconds` and `nextPreviewAt`)
 * and the `Retry-After` header. Pure, so the words are tested without a browser.
 */
import { duration } from './format.ts';

/** A failed preview as the console shows it. */
export interface PreviewFailure {
  readonly kind: 'limit' | 'parameter' | 'error';
  readonly title: string;
  readonly lines: readonly string[];
  /** The parameter a 400 is about (for the form to mark). */
  readonly param?: string;
  /** When the next free preview is allowed (429). */
  readonly nextPreviewAt?: string;
}

const field = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

/** Seconds until the next preview: the body's figure, else the Retry-After header (delta-seconds). */
function waitSeconds(body: unknown, retryAfter: string | null): number | null {
  const fromBody = field(body, 'retryAfterSeconds');
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  if (retryAfter !== null && /^[0-9]+$/.test(retryAfter.trim())) return Number(retryAfter.trim());
  return null;
}

/** Describes a non-200 preview answer; `formatTime` renders `nextPreviewAt` for the reader. */
export function describePreviewFailure(
  status: number,
  body: unknown,
  retryAfter: string | null,
  formatTime: (iso: string) => string = (iso) => iso,
): PreviewFailure {
  const message = typeof field(body, 'message') === 'string' ? (field(body, 'message') as string) : null;
  const code = typeof field(body, 'error') === 'string' ? (field(body, 'error') as string) : null;
  if (status === 429) {
    const wait = waitSeconds(body, retryAfter);
    const next = field(body, 'nextPreviewAt');
    const when = typeof next === 'string' && !Number.isNaN(Date.parse(next)) ? next : undefined;
    const lines = [
      message ?? 'The free preview quota is used up.',
      when !== undefined || wait !== null
        ? `Next free preview: ${when ? formatTime(when) : 'later'}${wait !== null ? ` (in ${duration(wait)}${retryAfter ? `; Retry-After: ${retryAfter} s` : ''})` : ''}.`
        : 'Try the preview again later.',
      'You do not have to wait: pay for this call instead. It costs the price above, on Solana or Base, with no account; use the curl command or the CLI below.',
    ];
    return { kind: 'limit', title: 'Free preview used up for today', lines, ...(when ? { nextPreviewAt: when } : {}) };
  }
  const param = field(body, 'param');
  if (status === 400 && typeof param === 'string') {
    const what = param === '*' ? 'The query as a whole' : `Parameter "${param}"`;
    return { kind: 'parameter', title: `${what} is not accepted`, lines: [message ?? `${code ?? 'invalid_parameter'}`], param };
  }
  const title = status === 503 ? 'The service is not taking calls now' : status === 404 ? 'Not found' : `The service answered ${status}`;
  return { kind: 'error', title, lines: [message ?? (code ? code : 'No details were given.')] };
}
