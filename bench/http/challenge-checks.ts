/**
 * What the 402 benchmark checks before it trusts its figures: that the service's challenge is what
 * a payer needs (header and body the same JSON, the request's own URL, a blockhash the chain still
 * accepts), that the reference offers the same terms, and which statuses a load run really got;
 * and our replies as sent, for the same-bytes ceiling (hello-server.ts).
 */
import { get } from 'node:http';
import { type CapturedReply, HEADERS_UWS_WRITES } from './hello-server.ts';

interface Accept {
  readonly scheme: string;
  readonly network: string;
  readonly amount: string;
  readonly asset: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A decoded 402: its PaymentRequired from the `PAYMENT-REQUIRED` header. */
export interface Challenge {
  readonly status: number;
  readonly resourceUrl: string;
  readonly accepts: readonly Accept[];
  /** The Solana option's `extra.recentBlockhash`, or null. */
  readonly recentBlockhash: string | null;
  /** True when the body is the short error of a lean 402 (ours: a code, a sentence, the discovery document; no challenge). */
  readonly bodyIsShortError: boolean;
}

/** A lean 402's body: `error` and `message` and a discovery URL, and no `accepts` (the challenge is in the header only). */
function isShortError(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return typeof parsed.error === 'string' && typeof parsed.message === 'string' && typeof parsed.discovery === 'string' && !('accepts' in parsed);
  } catch {
    return false;
  }
}

/** GETs `url` and decodes its challenge; fails when it is not a 402 with a PAYMENT-REQUIRED header. */
export async function fetchChallenge(url: string): Promise<Challenge> {
  const res = await fetch(url);
  const header = res.headers.get('payment-required');
  const body = await res.text();
  if (res.status !== 402 || header === null) throw new Error(`${url} answered ${res.status} without a challenge: ${body.slice(0, 200)}`);
  const json = Buffer.from(header, 'base64').toString('utf8');
  const required = JSON.parse(json) as { resource: { url: string }; accepts: Accept[] };
  const svm = required.accepts.find((a) => a.network.startsWith('solana:'));
  const hash = svm?.extra?.recentBlockhash;
  return {
    status: res.status,
    resourceUrl: required.resource.url,
    accepts: required.accepts,
    recentBlockhash: typeof hash === 'string' ? hash : null,
    bodyIsShortError: isShortError(body),
  };
}

/** The differences between two offers' terms, network by network (empty when they agree). */
export function termDifferences(ours: readonly Accept[], reference: readonly Accept[]): string[] {
  const problems: string[] = [];
  if (ours.length !== reference.length) problems.push(`${ours.length} options vs ${reference.length}`);
  for (const a of ours) {
    const b = reference.find((r) => r.network === a.network);
    if (!b) {
      problems.push(`the reference offers nothing on ${a.network}`);
      continue;
    }
    for (const key of ['scheme', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'] as const)
      if (a[key] !== b[key]) problems.push(`${a.network} ${key}: ${a[key]} vs ${b[key]}`);
    for (const key of ['feePayer', 'name', 'version'])
      if (a.extra?.[key] !== b.extra?.[key]) problems.push(`${a.network} extra.${key}: ${String(a.extra?.[key])} vs ${String(b.extra?.[key])}`);
  }
  return problems;
}

/** Asks the chain's RPC whether `blockhash` is still valid (a payer could still use it). */
export async function blockhashValid(rpcUrl: string, blockhash: string): Promise<boolean> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'isBlockhashValid', params: [blockhash, { commitment: 'processed' }] }),
  });
  const answer = (await res.json()) as { result?: { value: boolean } };
  return answer.result?.value === true;
}

/** The service's request counters by status, from /health. */
export async function statusCounts(serviceUrl: string): Promise<Record<string, number>> {
  const health = (await (await fetch(`${serviceUrl}/health`)).json()) as { requests: { byStatus: Record<string, number> } };
  return health.requests.byStatus;
}

/** What changed between two status counts (the /health call itself shows as one 200). */
export function countsDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [status, n] of Object.entries(after)) {
    const d = n - (before[status] ?? 0);
    if (d !== 0) delta[status] = d;
  }
  return delta;
}

/** GETs `url` and keeps its reply as sent: status line, headers in order (but HEADERS_UWS_WRITES), body. */
export function captureReply(url: string): Promise<CapturedReply> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => {
        const headers: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (!HEADERS_UWS_WRITES.has(name.toLowerCase())) headers.push([name, res.rawHeaders[i + 1]!]);
        }
        resolve({ statusLine: `${res.statusCode} ${res.statusMessage}`, headers, body });
      });
    }).on('error', reject);
  });
}

/** The bytes a 402 spends, and the part of them the x402 extensions beside `payment-identifier` add. */
export interface ChallengeBytes {
  readonly body: number;
  readonly paymentRequiredHeader: number;
  /** Per extension (and the `resource` object's service metadata): the bytes of its JSON member in the challenge. */
  readonly extensions: Readonly<Record<string, number>>;
}

/** Sizes of a captured 402: the body, its PAYMENT-REQUIRED header, and what each extension adds to the challenge's JSON (the header adds 4/3 of it). */
export function challengeBytes(reply: CapturedReply): ChallengeBytes {
  const header = reply.headers.find(([name]) => name.toLowerCase() === 'payment-required')?.[1] ?? '';
  const challenge = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { resource: Record<string, unknown>; extensions?: Record<string, unknown> };
  const member = (key: string, value: unknown) => Buffer.byteLength(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  const extensions: Record<string, number> = {};
  for (const [key, value] of Object.entries(challenge.extensions ?? {})) if (key !== 'payment-identifier') extensions[key] = member(key, value);
  const metadata = ['serviceName', 'tags', 'iconUrl'].filter((k) => k in challenge.resource);
  extensions['resource metadata'] = metadata.reduce((sum, k) => sum + member(k, challenge.resource[k]), 0);
  return { body: Buffer.byteLength(reply.body), paymentRequiredHeader: Buffer.byteLength(header), extensions };
}
