/**
 * Payment terms (x402 v2 `PaymentRequirements`) per paid route and the 402 challenge built from
 * them, the one builder of every 402 the service answers. The `accepts` JSON of every route is
 * rendered once at start; a challenge only splices in the request's own resource URL, and the
 * base64 of everything after it is kept while the live terms (the blockhash) stay the same, so
 * answering 402 costs one small string build and the base64 of its first hundred bytes.
 */
import type { EndpointEntry } from '../catalog/endpoints.ts';
import { ERROR_STATUS, type HttpReply } from '../errors.ts';
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_DECLARATION } from './payment-identifier.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2, type PaymentRequirements } from './x402-types.ts';

/** Every challenge gives the payer 60 s (docs/contract.md#payment-terms). */
export const MAX_TIMEOUT_SECONDS = 60;

/** The terms of our payment channels on Base (the `batch-settlement` scheme). */
export interface ChannelTerms {
  /** The key that authorizes our claims and refunds. */
  readonly receiverAuthorizer: string;
  /** Seconds a payer's timed withdrawal waits, during which we claim what we earned. */
  readonly withdrawDelay: number;
  /** The deposit a channel is asked to hold, in calls of the route (`minDeposit` = price x this). */
  readonly minDepositCalls: number;
}

export interface PaymentTermsConfig {
  readonly svm: { readonly payTo: string; readonly asset: string; readonly feePayer: string };
  readonly evm: { readonly payTo: string; readonly asset: string; readonly name: string; readonly version: string };
  /** Offered when a channel path is configured; null or absent: exact only. */
  readonly channel?: ChannelTerms | null;
}

/**
 * The accepted options of a route: Solana mainnet first, then Base `exact` (the default for
 * one-off callers), then a Base payment channel when we run one.
 */
export function paymentRequirementsFor(entry: EndpointEntry, terms: PaymentTermsConfig): readonly PaymentRequirements[] {
  const amount = String(entry.priceUnits);
  const channel: PaymentRequirements[] = terms.channel
    ? [
        {
          scheme: 'batch-settlement',
          network: BASE_MAINNET_CAIP2,
          amount,
          payTo: terms.evm.payTo,
          maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
          asset: terms.evm.asset,
          extra: {
            receiverAuthorizer: terms.channel.receiverAuthorizer,
            withdrawDelay: terms.channel.withdrawDelay,
            name: terms.evm.name,
            version: terms.evm.version,
            minDeposit: String(entry.priceUnits * terms.channel.minDepositCalls),
          },
        },
      ]
    : [];
  return [
    {
      scheme: 'exact',
      network: SOLANA_MAINNET_CAIP2,
      amount,
      payTo: terms.svm.payTo,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      asset: terms.svm.asset,
      extra: { feePayer: terms.svm.feePayer },
    },
    {
      scheme: 'exact',
      network: BASE_MAINNET_CAIP2,
      amount,
      payTo: terms.evm.payTo,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      asset: terms.evm.asset,
      extra: { name: terms.evm.name, version: terms.evm.version },
    },
    ...channel,
  ];
}

export interface ChallengeBuilder {
  readonly accepts: readonly PaymentRequirements[];
  /**
   * The 402 reply: the x402 v2 PaymentRequired JSON as body and, base64, as the
   * `PAYMENT-REQUIRED` header. `error` says why (default `Payment required`).
   */
  reply(resourceUrl: string, error?: string): HttpReply;
  /**
   * A 402 for one payer: the options of `scheme` carry `extra` fields of its own (a channel's
   * corrective 402 hands back the channel's state and the last voucher). Built every time.
   */
  replyWithExtra(resourceUrl: string, error: string, scheme: PaymentRequirements['scheme'], extra: Readonly<Record<string, unknown>>): HttpReply;
}

/** Per-challenge values that change over time (kept out of `accepts`, which payments must match). */
export interface LiveTerms {
  /**
   * Extra fields spliced into the Solana option, e.g. a warm `recentBlockhash`; null for none.
   * The same object while the values stay the same, a new one when they change (never mutated).
   */
  readonly svmExtra: () => Readonly<Record<string, string>> | null;
}

/** Why a plain challenge (no payment sent) is a 402. */
const DEFAULT_CHALLENGE_ERROR = 'Payment required';
/**
 * Plain challenges kept per route for the current live terms, by resource URL (oldest dropped
 * first): at about 7.5 kB each, at most half a megabyte per route.
 */
export const MAX_KEPT_CHALLENGES = 64;
/** Longer resource URLs get a challenge built every time (their query is an unusual one). */
const MAX_KEPT_URL_CHARS = 512;

const EXTENSIONS_JSON = JSON.stringify({ [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION });

/**
 * Renders `accepts` with live extra fields added to the Solana option (the first). `extra` is that
 * option's last key, so its closing `}}` is where the live fields go; the last rendering is reused
 * while the live values stay the same (a blockhash lives ~2 s in the cache).
 */
function createAcceptsRenderer(accepts: readonly PaymentRequirements[], live?: LiveTerms): () => string {
  const staticJson = JSON.stringify(accepts);
  if (!live) return () => staticJson;
  const [svm, ...rest] = accepts;
  const svmJson = JSON.stringify(svm);
  const svmHead = svmJson.slice(0, -2);
  const restJson = rest.map((r) => `,${JSON.stringify(r)}`).join('');
  let lastKey = '';
  let lastJson = staticJson;
  let lastExtra: Readonly<Record<string, string>> | null = null;
  return () => {
    const extra = live.svmExtra();
    if (!extra) return staticJson;
    // The live terms hand out one object per value: the same object renders the same JSON.
    if (extra === lastExtra) return lastJson;
    lastExtra = extra;
    const fields = Object.entries(extra)
      .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join('');
    if (fields !== lastKey) {
      lastKey = fields;
      lastJson = `[${svmHead}${fields}}}${restJson}]`;
    }
    return lastJson;
  };
}

/**
 * Base64 of `head + tail` where `tail` is fixed and long and `head` varies and is short: base64
 * works in 3-byte groups, so the tail's encoding only depends on where it starts modulo 3. The
 * tail is encoded once per alignment (from byte 0, 1 or 2, the skipped bytes going with the head),
 * and each call encodes only the head and the 0-2 tail bytes that complete its last group.
 */
export function createSplicedBase64(tail: string): (head: string) => string {
  // The bytes a head borrows are taken as characters: they must be one byte each.
  if (!(tail.charCodeAt(0) < 0x80 && tail.charCodeAt(1) < 0x80)) throw new Error('the fixed part must start with two ASCII characters');
  const tails = [0, 1, 2].map((skip) => Buffer.from(tail.slice(skip)).toString('base64'));
  return (head) => {
    const borrow = (3 - (Buffer.byteLength(head) % 3)) % 3;
    return Buffer.from(borrow === 0 ? head : head + tail.slice(0, borrow)).toString('base64') + tails[borrow];
  };
}

/** Precomputes the route's terms and returns a builder of its 402 challenges. */
export function createChallengeBuilder(entry: EndpointEntry, terms: PaymentTermsConfig, live?: LiveTerms): ChallengeBuilder {
  const accepts = paymentRequirementsFor(entry, terms);
  const acceptsJson = createAcceptsRenderer(accepts, live);
  const resourceTail = `,"description":${JSON.stringify(entry.description)},"mimeType":"application/json"}`;
  // Everything after the resource URL is fixed while the live terms are: its base64 is kept.
  let spliced: { readonly accepts: string; readonly tail: string; readonly base64: (head: string) => string } | null = null;
  const tailNow = () => {
    const json = acceptsJson();
    if (spliced?.accepts !== json) {
      const tail = `${resourceTail},"accepts":${json},"extensions":${EXTENSIONS_JSON}}`;
      spliced = { accepts: json, tail, base64: createSplicedBase64(tail) };
    }
    return spliced;
  };
  const render = (resourceUrl: string, error: string): HttpReply => {
    const head = `{"x402Version":2,"error":${JSON.stringify(error)},"resource":{"url":${JSON.stringify(resourceUrl)}`;
    const { tail, base64 } = tailNow();
    return Object.freeze({
      status: ERROR_STATUS.payment_required,
      headers: Object.freeze({ 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': base64(head) }),
      body: head + tail,
    });
  };
  // The plain challenge of a URL is the same bytes until the live terms change (a new blockhash,
  // about every 2 s): callers polling a route get the reply already built, not 7 kB of new strings.
  const plain = new Map<string, HttpReply>();
  let plainFor: object | null = null;
  return {
    accepts,
    replyWithExtra(resourceUrl, error, scheme, extra) {
      const patched = accepts.map((r) => (r.scheme === scheme ? { ...r, extra: { ...r.extra, ...extra } } : r));
      const head = `{"x402Version":2,"error":${JSON.stringify(error)},"resource":{"url":${JSON.stringify(resourceUrl)}`;
      const body = `${head}${resourceTail},"accepts":${JSON.stringify(patched)},"extensions":${EXTENSIONS_JSON}}`;
      return {
        status: ERROR_STATUS.payment_required,
        headers: { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': Buffer.from(body).toString('base64') },
        body,
      };
    },
    reply(resourceUrl, error) {
      if (error !== undefined) return render(resourceUrl, error);
      const now = tailNow();
      if (plainFor !== now) {
        plain.clear();
        plainFor = now;
      }
      const kept = plain.get(resourceUrl);
      if (kept) return kept;
      const built = render(resourceUrl, DEFAULT_CHALLENGE_ERROR);
      if (resourceUrl.length > MAX_KEPT_URL_CHARS) return built;
      if (plain.size >= MAX_KEPT_CHALLENGES) plain.delete(plain.keys().next().value!);
      plain.set(resourceUrl, built);
      return built;
    },
  };
}
