/**
 * The service's `did:web` identity (W3C did:web method): the DID named after the public URL, the
 * key id that signs the x402 offers and receipts, and the DID document that binds that key id to
 * the service's ed25519 public key. A verifier resolves the key id by fetching the document from
 * the public URL itself, so only whoever serves that URL can publish the key.
 */

/** Fragment of the one verification method: the service identity key (the one that signs our own receipts). */
export const DID_KEY_FRAGMENT = 'identity';

/**
 * The DID of a public base URL: the host (its port's colon percent-encoded) and then each path
 * segment, colon-separated. `https://api.example.com` is `did:web:api.example.com`,
 * `http://127.0.0.1:8402` is `did:web:127.0.0.1%3A8402`.
 */
export function didWebOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const segments = url.pathname.split('/').filter((s) => s.length > 0);
  return ['did:web', encodeURIComponent(url.host), ...segments.map(encodeURIComponent)].join(':');
}

/** The key id (DID URL) of the identity key under a public base URL. */
export function keyIdOf(baseUrl: string): string {
  return `${didWebOf(baseUrl)}#${DID_KEY_FRAGMENT}`;
}

/**
 * Where a did:web resolver fetches the document, relative to the base URL: the well-known path for
 * a bare host, `did.json` under the path otherwise (the service serves both).
 */
export const DID_DOCUMENT_PATHS = ['/.well-known/did.json', '/did.json'] as const;

/** The DID document: one JsonWebKey2020 Ed25519 method, authorized for assertions (signed offers and receipts). */
export function didDocument(baseUrl: string, publicKeyBytes: Uint8Array): Record<string, unknown> {
  const id = didWebOf(baseUrl);
  const keyId = `${id}#${DID_KEY_FRAGMENT}`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id,
    verificationMethod: [
      {
        id: keyId,
        type: 'JsonWebKey2020',
        controller: id,
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyBytes).toString('base64url') },
      },
    ],
    assertionMethod: [keyId],
  };
}
