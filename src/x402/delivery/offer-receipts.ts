/**
 * Signed offers and receipts (the x402 `offer-receipt` extension) for every paid route. An offer
 * names the endpoint (its resource URL without the query: the price is the endpoint's, whatever the
 * query) and one `accepts` option, and is valid for OFFER_VALIDITY_SECONDS; the offers of every
 * route are signed together in the pool, and again before the ones served have less than
 * OFFER_RENEW_MARGIN_SECONDS left, so a 402 never signs anything and its kept bytes stay kept. A
 * receipt is signed per paid answer, beside our own receipt, naming the same resource URL, payer
 * and network. Its payload is those three and the second it was issued in, nothing of the call, and
 * Ed25519 is deterministic: a bot's calls to one endpoint within a second get the same bytes, so
 * they are signed once (an Ed25519 signature and a JWS per paid call saved at a bot's pace).
 */
import type { ChallengeTransport } from './payment-terms.ts';
import { OFFER_RECEIPT, type ExtensionObject, type OfferReceiptSigner } from './x402-extensions.ts';
import type { PaymentRequirements } from '../types/x402-types.ts';

/** How long a signed offer stays valid (its `validUntil`), seconds. */
export const OFFER_VALIDITY_SECONDS = 600;
/** Offers are re-signed when the ones served have this little left: twice a payer's 60 s. */
export const OFFER_RENEW_MARGIN_SECONDS = 120;
/** After a failed signing round, the next try, ms. */
const RETRY_MS = 5_000;
/** Receipts of the current second kept at most: a new second, or this many, starts the map afresh. */
export const RECEIPTS_KEPT_PER_SECOND = 4096;

export interface OfferReceiptsConfig {
  readonly signer: OfferReceiptSigner;
  /** Every paid route and its `accepts`, in the order its 402 lists them (read at each signing round). */
  readonly routes: () => readonly { readonly path: string; readonly accepts: readonly PaymentRequirements[] }[];
  /** The resource URL an offer of `path` names on `transport` (known once the service listens). */
  readonly resourceUrl: (path: string, transport: ChallengeTransport) => string;
  /** Wall clock, ms since the epoch. */
  readonly now?: () => number;
  /** Where a failed signing round is reported. */
  readonly fault?: (what: string, err: unknown) => void;
}

export interface OfferReceipts {
  /** `,"offer-receipt":{…}` for a route's 402 on a transport: the same string until re-signed; '' while none is valid. */
  member(path: string, transport: ChallengeTransport): string;
  /** Signs every route's offers now (the first round, awaited at start; then on its own timer). */
  start(): Promise<void>;
  /** The settlement response's `extensions` for a paid answer of `resourceUrl`, or null when signing failed. */
  receipt(resourceUrl: string, payer: string, network: string): Promise<Readonly<Record<string, ExtensionObject>> | null>;
  close(): void;
}

const TRANSPORTS: readonly ChallengeTransport[] = ['http', 'mcp'];
const keyOf = (path: string, transport: ChallengeTransport) => `${transport} ${path}`;
/** The endpoint a resource URL names: the URL without its query. */
export const endpointUrlOf = (resourceUrl: string): string => resourceUrl.split('?', 1)[0]!;

/** Creates the offers and receipts of the service; `start` before the first 402 that should carry offers. */
export function createOfferReceipts(config: OfferReceiptsConfig): OfferReceipts {
  const now = config.now ?? Date.now;
  const fault = config.fault ?? ((what, err) => console.error(`offer-receipt: ${what}: ${err instanceof Error ? err.message : String(err)}`));
  let members = new Map<string, string>();
  let validUntilMs = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let receiptsSecond = -1;
  let receipts = new Map<string, Promise<Readonly<Record<string, ExtensionObject>> | null>>();

  async function signReceipt(endpointUrl: string, payer: string, network: string, issuedAt: number) {
    try {
      const ext = await config.signer.receipt(endpointUrl, payer, network, issuedAt);
      return ext ? { [OFFER_RECEIPT]: ext } : null;
    } catch (err) {
      fault('signing a receipt failed; answering without it', err);
      return null;
    }
  }

  async function signRound(): Promise<void> {
    const validUntil = Math.floor(now() / 1000) + OFFER_VALIDITY_SECONDS;
    const signed = await Promise.all(
      config.routes().flatMap((route) =>
        TRANSPORTS.map(async (transport) => {
          const ext = await config.signer.offers(config.resourceUrl(route.path, transport), route.accepts, validUntil);
          return [keyOf(route.path, transport), ext ? `,${JSON.stringify(OFFER_RECEIPT)}:${JSON.stringify(ext)}` : ''] as const;
        }),
      ),
    );
    members = new Map(signed);
    validUntilMs = validUntil * 1000;
  }

  function schedule(ms: number): void {
    if (closed) return;
    timer = setTimeout(() => void round(), ms);
    timer.unref();
  }

  async function round(): Promise<void> {
    try {
      await signRound();
      schedule((OFFER_VALIDITY_SECONDS - OFFER_RENEW_MARGIN_SECONDS) * 1000);
    } catch (err) {
      fault('signing the offers failed; retrying', err);
      schedule(RETRY_MS);
    }
  }

  return {
    member(path, transport) {
      if (now() >= validUntilMs) return '';
      return members.get(keyOf(path, transport)) ?? '';
    },
    start: round,
    receipt(resourceUrl, payer, network) {
      const issuedAt = Math.floor(now() / 1000);
      if (issuedAt !== receiptsSecond || receipts.size >= RECEIPTS_KEPT_PER_SECOND) {
        receiptsSecond = issuedAt;
        receipts = new Map();
      }
      const endpointUrl = endpointUrlOf(resourceUrl);
      const key = `${network} ${payer} ${endpointUrl}`;
      let signed = receipts.get(key);
      if (!signed) {
        signed = signReceipt(endpointUrl, payer, network, issuedAt);
        receipts.set(key, signed);
        // A failed signature is not kept: the next call of the second tries again.
        const kept = receipts;
        void signed.then((ext) => ext === null && kept.get(key) === signed && kept.delete(key));
      }
      return signed;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
