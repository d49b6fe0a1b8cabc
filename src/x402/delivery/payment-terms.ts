/**
 * Payment terms (x402 v2 `PaymentRequirements`) per paid route and the 402 challenge built from
 * them, the one builder of every 402 the service answers. The `accepts` JSON of every route is
 * rendered once at start; a challenge only splices in the request's own resource URL, and the
 * base64 of everything after it is kept while the live terms (the blockhash) stay the same, so
 * answering 402 costs one small string build and the base64 of its first hundred bytes. The
 * challenge travels once, in `PAYMENT-REQUIRED`; the body is a short error (challenge-body.ts).
 */
import type { PricedResource } from '../../catalog/endpoints.ts';
import { ERROR_STATUS, type HttpReply } from '../../errors.ts';
import { challengeBody, PLAIN_CHALLENGE_ERROR } from './challenge-body.ts';
import { createAcceptsRenderer, createSplicedBase64, type LiveTerms } from './challenge-splice.ts';
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_DECLARATION } from '../types/payment-identifier.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2, type PaymentRequirements } from '../types/x402-types.ts';

export { createSplicedBase64, type LiveTerms };

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
export function paymentRequirementsFor(entry: PricedResource, terms: PaymentTermsConfig): readonly PaymentRequirements[] {
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
   * The 402 reply: the x402 v2 PaymentRequired JSON, base64, as the `PAYMENT-REQUIRED` header, and
   * a short JSON error as body. `error` says why (default `Payment required`).
   */
  reply(resourceUrl: string, error?: string): HttpReply;
  /**
   * A 402 for one payer: the options of `scheme` carry `extra` fields of its own (a channel's
   * corrective 402 hands back the channel's state and the last voucher). Built every time.
   */
  replyWithExtra(resourceUrl: string, error: string, scheme: PaymentRequirements['scheme'], extra: Readonly<Record<string, unknown>>): HttpReply;
  /** The JSON text of the `extensions` of the route's latest 402 per transport, which a payment may echo (the same array until one changes). */
  echoedExtensions?(): readonly string[];
}

/**
 * Plain challenges kept per route for the current live terms, by resource URL (oldest dropped
 * first): at about 4 kB each, at most a quarter of a megabyte per route.
 */
export const MAX_KEPT_CHALLENGES = 64;
/** Longer resource URLs get a challenge built every time (their query is an unusual one). */
const MAX_KEPT_URL_CHARS = 512;

/** The `payment-identifier` member every challenge's `extensions` starts with. */
const PAYMENT_IDENTIFIER_MEMBER = `${JSON.stringify(PAYMENT_IDENTIFIER)}:${JSON.stringify(PAYMENT_IDENTIFIER_DECLARATION)}`;

/** Which front end a challenge goes out on: its extensions differ (an MCP tool's discovery is a tool's). */
export type ChallengeTransport = 'http' | 'mcp';
/** Resource URLs of MCP tools use this scheme (`mcp://tool/<name>`); every other resource is an HTTP URL. */
const MCP_RESOURCE_SCHEME = 'mcp:';
const transportOf = (resourceUrl: string): ChallengeTransport => (resourceUrl.startsWith(MCP_RESOURCE_SCHEME) ? 'mcp' : 'http');

/**
 * What a route's challenges carry beside its terms, as JSON text ready to splice: read on every
 * challenge, so each returns the same string while its content stays the same (the built
 * challenge is kept until one of them changes).
 */
export interface ChallengeExtensions {
  /** Members added to the challenge's `resource` object (the service metadata), each led by a comma; '' for none. */
  resourceFields(): string;
  /** Members of `extensions` after `payment-identifier`, each led by a comma; '' for none. */
  members(transport: ChallengeTransport): string;
}

/** Everything of a challenge after its resource URL, for the current live terms and extensions. */
interface Tail {
  readonly accepts: string;
  readonly fields: string;
  readonly members: string;
  /** The rest of the `resource` object after its URL. */
  readonly resource: string;
  readonly extensions: string;
  readonly tail: string;
  readonly base64: (head: string) => string;
}

/**
 * Every 402 is for this request now: its signed offers and live terms expire, a refusal names this
 * payment. A shared cache must never keep one (as the official x402 server sends it).
 */
export const PAYMENT_REQUIRED_CACHE_CONTROL = 'no-store';

const headOf = (resourceUrl: string, error: string) => `{"x402Version":2,"error":${JSON.stringify(error)},"resource":{"url":${JSON.stringify(resourceUrl)}`;

/** Precomputes the route's terms and returns a builder of its 402 challenges. */
export function createChallengeBuilder(entry: PricedResource, terms: PaymentTermsConfig, live?: LiveTerms, extensions?: ChallengeExtensions): ChallengeBuilder {
  const accepts = paymentRequirementsFor(entry, terms);
  const acceptsJson = createAcceptsRenderer(accepts, live);
  const resourceHead = `,"description":${JSON.stringify(entry.description)},"mimeType":"application/json"`;
  // Everything after the resource URL is fixed while the live terms and extensions are: its base64 is kept.
  const tails: Record<ChallengeTransport, Tail | null> = { http: null, mcp: null };
  let extensionTexts: readonly string[] = [];
  const tailNow = (transport: ChallengeTransport): Tail => {
    const json = acceptsJson();
    const fields = extensions?.resourceFields() ?? '';
    const members = extensions?.members(transport) ?? '';
    const kept = tails[transport];
    if (kept?.accepts === json && kept.fields === fields && kept.members === members) return kept;
    const resource = `${resourceHead}${fields}}`;
    const ext = `{${PAYMENT_IDENTIFIER_MEMBER}${members}}`;
    const tail = `${resource},"accepts":${json},"extensions":${ext}}`;
    const built = { accepts: json, fields, members, resource, extensions: ext, tail, base64: createSplicedBase64(tail) };
    tails[transport] = built;
    extensionTexts = Object.freeze([tails.http?.extensions, tails.mcp?.extensions].filter((t): t is string => t !== undefined));
    return built;
  };
  const render = (resourceUrl: string, error: string, now: Tail): HttpReply =>
    Object.freeze({
      status: ERROR_STATUS.payment_required,
      headers: Object.freeze({
        'Content-Type': 'application/json',
        'Cache-Control': PAYMENT_REQUIRED_CACHE_CONTROL,
        'PAYMENT-REQUIRED': now.base64(headOf(resourceUrl, error)),
      }),
      body: challengeBody(resourceUrl, entry.path, error),
    });
  // The plain challenge of a URL is the same bytes until the live terms change (a new blockhash,
  // about every 2 s): callers polling a route get the reply already built, not 4 kB of new strings.
  const plain: Record<ChallengeTransport, { readonly replies: Map<string, HttpReply>; for: Tail | null }> = {
    http: { replies: new Map(), for: null },
    mcp: { replies: new Map(), for: null },
  };
  return {
    accepts,
    echoedExtensions: () => extensionTexts,
    replyWithExtra(resourceUrl, error, scheme, extra) {
      const patched = accepts.map((r) => (r.scheme === scheme ? { ...r, extra: { ...r.extra, ...extra } } : r));
      const now = tailNow(transportOf(resourceUrl));
      const challenge = `${headOf(resourceUrl, error)}${now.resource},"accepts":${JSON.stringify(patched)},"extensions":${now.extensions}}`;
      return {
        status: ERROR_STATUS.payment_required,
        headers: {
          'Content-Type': 'application/json',
          'Cache-Control': PAYMENT_REQUIRED_CACHE_CONTROL,
          'PAYMENT-REQUIRED': Buffer.from(challenge).toString('base64'),
        },
        body: challengeBody(resourceUrl, entry.path, error),
      };
    },
    reply(resourceUrl, error) {
      const transport = transportOf(resourceUrl);
      const now = tailNow(transport);
      if (error !== undefined) return render(resourceUrl, error, now);
      const kept = plain[transport];
      if (kept.for !== now) {
        kept.replies.clear();
        kept.for = now;
      }
      const known = kept.replies.get(resourceUrl);
      if (known) return known;
      const built = render(resourceUrl, PLAIN_CHALLENGE_ERROR, now);
      if (resourceUrl.length > MAX_KEPT_URL_CHARS) return built;
      if (kept.replies.size >= MAX_KEPT_CHALLENGES) kept.replies.delete(kept.replies.keys().next().value!);
      kept.replies.set(resourceUrl, built);
      return built;
    },
  };
}
