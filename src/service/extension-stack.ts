/**
 * The x402 extensions of the service, composed: the bazaar declarations of every route (validated
 * before anything starts), the signed offers and receipts under the service identity with its
 * `did:web` key id, the challenge extensions of each route, and the DID document and icon routes.
 */
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { createIdentityRoutes } from '../http/routes/identity-routes.ts';
import type { Route } from '../http/server/route.ts';
import { toolNameOf, toolResourceUrl } from '../mcp/paid-tools.ts';
import { DID_DOCUMENT_PATHS, didDocument, keyIdOf } from '../receipts/did-web.ts';
import { createOfferReceipts, type OfferReceipts } from '../x402/delivery/offer-receipts.ts';
import type { ExtensionReceipt } from '../x402/delivery/paid-delivery.ts';
import type { ChallengeBuilder, ChallengeExtensions } from '../x402/delivery/payment-terms.ts';
import { createOfferReceiptSigner } from '../x402/delivery/x402-extensions.ts';
import { catalogExtensionsOf, challengeExtensionsOf, declareCatalogDiscovery, ICON_PATH } from './route-extensions.ts';

export interface ExtensionStackConfig {
  readonly serviceName: string;
  /** The identity's ed25519 public key (the DID document's key). */
  readonly publicKeyBytes: Uint8Array;
  /** ed25519 with the identity, in the pool (the signer of our own receipts). */
  readonly sign: (message: Uint8Array) => Promise<Uint8Array>;
  /** The public base URL, known once the service listens. */
  readonly baseUrl: () => string;
}

/** What the payment side takes of the extensions. */
export interface PaymentExtensions {
  readonly extensionsFor: (entry: EndpointEntry) => ChallengeExtensions;
  readonly extensionReceipt: ExtensionReceipt;
}

export interface ExtensionStack {
  readonly payments: PaymentExtensions;
  /** What the discovery document publishes for a route: its full bazaar declaration and its signed offers. */
  readonly catalogFor: (entry: EndpointEntry) => Readonly<Record<string, unknown>>;
  /** Changes whenever the offers are signed again (or lapse): the discovery document is rendered again. */
  readonly offersGeneration: () => string;
  readonly offers: OfferReceipts;
  readonly routes: Route[];
  /** Signs the first offers, once the service listens and the challenges exist. */
  start(challenges: ReadonlyMap<string, ChallengeBuilder>): Promise<void>;
  close(): void;
}

/** Builds the extensions; throws ConfigError when the official validators refuse the catalog's declarations. */
export function createExtensionStack(config: ExtensionStackConfig): ExtensionStack {
  const discovery = declareCatalogDiscovery(config.serviceName);
  let challenges: ReadonlyMap<string, ChallengeBuilder> = new Map();
  const offers = createOfferReceipts({
    signer: createOfferReceiptSigner({ kid: () => keyIdOf(config.baseUrl()), sign: config.sign }),
    routes: () => CATALOG.map((e) => ({ path: e.path, accepts: challenges.get(e.path)?.accepts ?? [] })),
    resourceUrl: (path, transport) => (transport === 'mcp' ? toolResourceUrl(toolNameOf(path)) : `${config.baseUrl()}${path}`),
  });
  let document = { for: '', json: '' };
  const didJson = () => {
    const base = config.baseUrl();
    if (document.for !== base) document = { for: base, json: JSON.stringify(didDocument(base, config.publicKeyBytes)) };
    return document.json;
  };
  const extensionsConfig = { serviceName: config.serviceName, discovery, baseUrl: config.baseUrl, offers };
  return {
    payments: {
      extensionsFor: (entry) => challengeExtensionsOf(entry, extensionsConfig),
      extensionReceipt: (resourceUrl, payer, network) => offers.receipt(resourceUrl, payer, network),
    },
    catalogFor: (entry) => catalogExtensionsOf(entry, extensionsConfig),
    offersGeneration: () => offers.member(CATALOG[0]!.path, 'http'),
    offers,
    routes: createIdentityRoutes({ didPaths: DID_DOCUMENT_PATHS, didDocument: didJson, iconPath: ICON_PATH }),
    start(built) {
      challenges = built;
      return offers.start();
    },
    close: () => offers.close(),
  };
}
