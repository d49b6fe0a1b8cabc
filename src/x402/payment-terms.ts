/**
 * Payment terms (x402 v2 `PaymentRequirements`) per paid route and the 402 challenge built from
 * them, the one builder of every 402 the service answers. The `accepts` JSON of every route is
 * rendered once at start; a challenge only splices in the request's own resource URL, so
 * answering 402 costs one small string build and one base64.
 */
import type { EndpointEntry } from '../catalog/endpoints.ts';
import { ERROR_STATUS, type HttpReply } from '../errors.ts';
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_DECLARATION } from './payment-identifier.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2, type PaymentRequirements } from './x402-types.ts';

/** Every challenge gives the payer 60 s (docs/contract.md#payment-terms). */
export const MAX_TIMEOUT_SECONDS = 60;

export interface PaymentTermsConfig {
  readonly svm: { readonly payTo: string; readonly asset: string; readonly feePayer: string };
  readonly evm: { readonly payTo: string; readonly asset: string; readonly name: string; readonly version: string };
}

/** The two accepted options of a route: Solana mainnet first, then Base. */
export function paymentRequirementsFor(entry: EndpointEntry, terms: PaymentTermsConfig): readonly PaymentRequirements[] {
  const amount = String(entry.priceUnits);
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
  ];
}

export interface ChallengeBuilder {
  readonly accepts: readonly PaymentRequirements[];
  /**
   * The 402 reply: the x402 v2 PaymentRequired JSON as body and, base64, as the
   * `PAYMENT-REQUIRED` header. `error` says why (default `Payment required`).
   */
  reply(resourceUrl: string, error?: string): HttpReply;
}

/** Per-challenge values that change over time (kept out of `accepts`, which payments must match). */
export interface LiveTerms {
  /** Extra fields spliced into the Solana option, e.g. a warm `recentBlockhash`; null for none. */
  readonly svmExtra: () => Readonly<Record<string, string>> | null;
}

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
  return () => {
    const extra = live.svmExtra();
    if (!extra) return staticJson;
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

/** Precomputes the route's terms and returns a builder of its 402 challenges. */
export function createChallengeBuilder(entry: EndpointEntry, terms: PaymentTermsConfig, live?: LiveTerms): ChallengeBuilder {
  const accepts = paymentRequirementsFor(entry, terms);
  const acceptsJson = createAcceptsRenderer(accepts, live);
  const resourceTail = `,"description":${JSON.stringify(entry.description)},"mimeType":"application/json"}`;
  return {
    accepts,
    reply(resourceUrl, error = 'Payment required') {
      const body = `{"x402Version":2,"error":${JSON.stringify(error)},"resource":{"url":${JSON.stringify(resourceUrl)}${resourceTail},"accepts":${acceptsJson()},"extensions":${EXTENSIONS_JSON}}`;
      return {
        status: ERROR_STATUS.payment_required,
        headers: { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': Buffer.from(body).toString('base64') },
        body,
      };
    },
  };
}
