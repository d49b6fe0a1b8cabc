/**
 * The x402 `offer-receipt` receipt of a paid answer, as the CLI keeps and checks it: taken from
 * PAYMENT-RESPONSE with the official extension's client code, saved beside our receipt, and
 * verified with the official JWS verification under the key the service's DID document publishes
 * (fetched from the service named by --url, as verify-receipt asks it for everything else). The key
 * must be the one that signed our receipt, and the x402 receipt must name the same network and
 * endpoint, so both receipts speak for one paid answer of one service.
 */
import {
  extractJWSHeader,
  extractReceiptFromResponse,
  extractReceiptPayload,
  type ReceiptPayload,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { decodeBase58 } from '../chain/solana/base58.ts';
import type { CheckLine, TrustFetch } from '../receipt-checks/receipt-check.ts';

export type { ReceiptPayload };

/** The signed receipt (`{ format, signature }`) as the settlement response carried it. */
export type ExtensionReceipt = Readonly<Record<string, unknown>>;

/** Where the service publishes its DID document. */
const DID_DOCUMENT_PATH = '/.well-known/did.json';

/** The extension receipt a PAYMENT-RESPONSE header carries, or null. */
export function extensionReceiptOf(headers: Headers): ExtensionReceipt | null {
  const receipt = extractReceiptFromResponse({ headers } as Response);
  return receipt ? (receipt as unknown as ExtensionReceipt) : null;
}

/** The receipt's payload, read without checking it (for display), or null when it is not a JWS receipt. */
export function extensionPayloadOf(receipt: ExtensionReceipt): ReceiptPayload | null {
  try {
    return extractReceiptPayload(receipt as never);
  } catch {
    return null;
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The verification method of `kid` in the document, when it is an Ed25519 JWK. */
function methodOf(doc: unknown, kid: string): { readonly jwk: Json; readonly x: string } | null {
  if (!isObject(doc) || !Array.isArray(doc.verificationMethod)) return null;
  const method = doc.verificationMethod.find((m: unknown) => isObject(m) && m.id === kid) as Json | undefined;
  const jwk = method?.publicKeyJwk;
  return isObject(jwk) && jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string' ? { jwk, x: jwk.x } : null;
}

/** What our own receipt says of the same answer. */
export interface OurReceipt {
  readonly signedBy: string;
  readonly network: string;
  readonly endpoint: string;
}

/** The endpoint path an x402 receipt's resource URL names (`mcp://tool/<name>` names a tool, no path). */
const endpointOf = (resourceUrl: string): string | null => {
  try {
    const url = new URL(resourceUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.pathname : null;
  } catch {
    return null;
  }
};

/** The checks of one extension receipt against the service's DID document and our receipt. */
export async function checkExtensionReceipt(receipt: ExtensionReceipt, ours: OurReceipt, get: TrustFetch): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const check = (name: string, ok: boolean, detail = ''): boolean => {
    lines.push({ name, ok, detail });
    return ok;
  };
  let kid = '';
  try {
    kid = extractJWSHeader(String(receipt.signature)).kid ?? '';
  } catch {
    check('x402 receipt', false, 'not a JWS receipt');
    return lines;
  }
  const doc = await get(DID_DOCUMENT_PATH);
  const method = doc.status === 200 ? methodOf(doc.body, kid) : null;
  if (!check('x402 receipt key', method !== null, method ? kid : `${DID_DOCUMENT_PATH} publishes no Ed25519 key ${kid || '(no kid)'}`)) return lines;
  const signer = decodeBase58(ours.signedBy);
  const same = signer !== null && Buffer.from(signer).toString('base64url') === method!.x;
  check('x402 receipt signer', same, same ? 'the key that signed the receipt' : "the DID document's key is not the one that signed the receipt");
  let payload: ReceiptPayload;
  try {
    payload = await verifyReceiptSignatureJWS(receipt as never, method!.jwk as never);
  } catch {
    check('x402 receipt signature', false, 'the JWS signature does not verify under that key');
    return lines;
  }
  check('x402 receipt signature', true, 'EdDSA JWS');
  const endpoint = endpointOf(payload.resourceUrl);
  const matches = payload.network === ours.network && (endpoint === null || endpoint === ours.endpoint);
  check('x402 receipt names the answer', matches, `${payload.network} ${payload.resourceUrl}, payer ${payload.payer}`);
  return lines;
}
