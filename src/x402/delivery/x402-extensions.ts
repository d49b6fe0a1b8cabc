/**
 * The one importer of `@x402/extensions` in the service: the official `bazaar` discovery and
 * `offer-receipt` extensions, reduced to what this service does with them. Declarations are built
 * and judged by the library's own builders and validators; offers and receipts are wrapped by the
 * library's own server hooks (placement, `schema`) and assembled as JWS by its own `createJWS`,
 * around payloads that carry our clock and a signer that signs in the pool.
 */
import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  isValidIconUrl,
  isValidServiceName,
  sanitizeTags,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import {
  createJWS,
  createOfferReceiptExtension,
  OFFER_RECEIPT,
  type JWSSigner,
  type OfferPayload,
  type OfferReceiptIssuer,
  type ReceiptPayload,
} from '@x402/extensions/offer-receipt';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PaymentRequirements } from '../types/x402-types.ts';

export { BAZAAR_KEY, OFFER_RECEIPT };
const BAZAAR_KEY = 'bazaar';

/** The version of the offer and receipt payloads the extension defines. */
const OFFER_RECEIPT_VERSION = 1;

/** A bazaar declaration: `info` (what the resource takes and answers) and the JSON Schema of `info`. */
export type BazaarDeclaration = Readonly<Record<string, unknown>>;

/** An HTTP GET resource: its typed example query, the JSON Schema of its query and, when published, of its answer. */
export interface HttpDiscoveryInput {
  readonly example: Readonly<Record<string, unknown>>;
  readonly querySchema: Readonly<Record<string, unknown>>;
  /** Absent: the declaration says nothing of the answer (the bazaar's `output` is optional). */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * The answer's JSON Schema in the place the library gives an output's (`output.example`'s),
 * declared with no example: we publish no invented answer.
 */
function withOutputSchema(declared: DiscoveryExtension, outputSchema: Readonly<Record<string, unknown>>): BazaarDeclaration {
  const schema = declared.schema as { properties: Record<string, unknown> };
  return {
    ...declared,
    info: { ...declared.info, output: { type: 'json' } },
    schema: {
      ...schema,
      properties: {
        ...schema.properties,
        output: { type: 'object', properties: { type: { type: 'string' }, example: { type: 'object', ...outputSchema } }, required: ['type'] },
      },
    },
  };
}

/**
 * The bazaar declaration of a GET resource: the library's query declaration, with the method
 * added by the library's own server hook (as its middleware does per request) and, when given, the answer's schema.
 */
export function declareHttpDiscovery(input: HttpDiscoveryInput): BazaarDeclaration {
  const declared = declareDiscoveryExtension({ input: { ...input.example }, inputSchema: { ...input.querySchema } })[BAZAAR_KEY]!;
  const context = { method: 'GET', adapter: { getPath: () => '' } };
  const withMethod = bazaarResourceServerExtension.enrichDeclaration!(declared, context as never) as DiscoveryExtension;
  return input.outputSchema ? withOutputSchema(withMethod, input.outputSchema) : { ...withMethod };
}

/** An MCP tool: its name and description, the arguments schema of `tools/list`, a typed example, its answer's schema. */
export interface McpDiscoveryInput {
  readonly toolName: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly example: Readonly<Record<string, unknown>>;
  readonly outputSchema: Readonly<Record<string, unknown>>;
}

/** The bazaar declaration of a paid MCP tool, served over streamable HTTP. */
export function declareMcpDiscovery(input: McpDiscoveryInput): BazaarDeclaration {
  const declared = declareDiscoveryExtension({
    toolName: input.toolName,
    description: input.description,
    transport: 'streamable-http',
    inputSchema: { ...input.inputSchema },
    example: { ...input.example },
  })[BAZAAR_KEY]!;
  return withOutputSchema(declared, input.outputSchema);
}

/**
 * Findings already made in this process, by the declaration's JSON. The validators are pure, and
 * they build a JSON Schema engine per call (about 20 ms a declaration, 40 per catalog): a process
 * that starts the service more than once (tests, benchmarks) judges each declaration once.
 */
const judged = new Map<string, readonly string[]>();
/** Bound of the findings kept (a catalog has 40 declarations; other service names add 40 each). */
const JUDGED_MAX_ENTRIES = 512;

/** What the official validators say of a declaration: nothing when it passes, else their findings. */
export function bazaarProblems(declaration: BazaarDeclaration): string[] {
  const key = JSON.stringify(declaration);
  const known = judged.get(key);
  if (known) return [...known];
  const spec = validateDiscoveryExtensionSpec(declaration as Record<string, unknown>);
  const schema = quietFormats(() => validateDiscoveryExtension(declaration as unknown as DiscoveryExtension));
  const problems = [...(spec.errors ?? []), ...(schema.errors ?? [])];
  if (judged.size >= JUDGED_MAX_ENTRIES) judged.clear();
  judged.set(key, problems);
  return [...problems];
}

/** The `version` of the package whose package.json is the first found above `file`, named `name`. */
function packageVersion(file: string, name: string): { version: string; manifest: string } {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    try {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === name && parsed.version) return { version: parsed.version, manifest };
    } catch {
      // No manifest here (or a partial one of a build folder): look further up.
    }
  }
  throw new Error(`${name}: no package.json found above ${file}`);
}

/**
 * The versions of the code that judges declarations: this library and the JSON Schema engine it
 * validates with (its own dependency). A record of what the validators accepted holds for these
 * versions only: another version judges afresh.
 */
export function bazaarValidatorVersions(): string {
  const require = createRequire(import.meta.url);
  const library = packageVersion(require.resolve('@x402/extensions/bazaar'), '@x402/extensions');
  const engine = packageVersion(createRequire(library.manifest).resolve('ajv'), 'ajv');
  return `@x402/extensions@${library.version} ajv@${engine.version}`;
}

/** The validator's JSON Schema engine names each format it does not check (our `date-time`s) on the console: those lines only. */
const IGNORED_FORMAT_RE = /^unknown format ".*" ignored in schema/;

/** Runs a synchronous validation with the engine's ignored-format notices left out of the process's output. */
function quietFormats<T>(run: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && IGNORED_FORMAT_RE.test(args[0]))) warn(...args);
  };
  try {
    return run();
  } finally {
    console.warn = warn;
  }
}

/** The bazaar service metadata rules: a name, tags and icon URL survive a catalog's sanitizing unchanged. */
export const serviceMetadataRules = {
  nameValid: (name: string): boolean => isValidServiceName(name),
  tagsKept: (tags: readonly string[]): boolean => JSON.stringify(sanitizeTags([...tags]) ?? []) === JSON.stringify(tags),
  iconValid: (url: string): boolean => isValidIconUrl(url),
};

/** Signs bytes with the service identity (ed25519, in the pool) and names the key. */
export interface EdDsaSigner {
  /** DID URL of the key, `did:web:<host>#<fragment>` (read when signing: the host is known once the service listens). */
  readonly kid: () => string;
  readonly sign: (message: Uint8Array) => Promise<Uint8Array>;
}

/** The extension object of one transport's 402, or of one settlement: `{ info, schema }`. */
export type ExtensionObject = Readonly<Record<string, unknown>>;

/** Signs offers (for a 402's `accepts`) and receipts (for a settlement) as the `offer-receipt` extension. */
export interface OfferReceiptSigner {
  offers(resourceUrl: string, accepts: readonly PaymentRequirements[], validUntil: number): Promise<ExtensionObject | null>;
  receipt(resourceUrl: string, payer: string, network: string, issuedAt: number): Promise<ExtensionObject | null>;
}

/**
 * JWS (EdDSA) offers and receipts through the library's server hooks. The issuer builds the
 * payloads from the times given, not the library's wall clock: an offer's `validUntil` is the end
 * of the window its signature is kept for.
 */
export function createOfferReceiptSigner(signer: EdDsaSigner): OfferReceiptSigner {
  const sign = async (bytes: Uint8Array) => Buffer.from(await signer.sign(bytes)).toString('base64url');
  // One issuer per call: the times it stamps are that call's, whatever else is signing meanwhile.
  const hooksFor = (validUntil: number, issuedAt: number) => {
    const jws: JWSSigner = { kid: signer.kid(), format: 'jws', algorithm: 'EdDSA', sign };
    const issuer: OfferReceiptIssuer = {
      kid: jws.kid,
      format: 'jws',
      async issueOffer(resourceUrl, input) {
        const { scheme, network, asset, payTo, amount } = input;
        const payload: OfferPayload = { version: OFFER_RECEIPT_VERSION, resourceUrl, scheme, network, asset, payTo, amount, validUntil };
        return { format: 'jws', acceptIndex: input.acceptIndex, signature: await createJWS(payload, jws) };
      },
      async issueReceipt(resourceUrl, payer, network) {
        const payload: Omit<ReceiptPayload, 'transaction'> = { version: OFFER_RECEIPT_VERSION, network, resourceUrl, payer, issuedAt };
        return { format: 'jws', signature: await createJWS(payload, jws) };
      },
    };
    return createOfferReceiptExtension(issuer);
  };
  return {
    async offers(resourceUrl, accepts, validUntil) {
      const context = { paymentRequiredResponse: { resource: { url: resourceUrl } }, requirements: accepts };
      return ((await hooksFor(validUntil, 0).enrichPaymentRequiredResponse!({}, context as never)) as ExtensionObject | undefined) ?? null;
    },
    async receipt(resourceUrl, payer, network, issuedAt) {
      const context = { result: { success: true, payer, network }, transportContext: { request: { adapter: { getUrl: () => resourceUrl } } } };
      const ext = (await hooksFor(0, issuedAt).enrichSettlementResponse!({}, context as never)) as ExtensionObject | undefined;
      // The receipt only (`info.receipt`, where the extension places it and the official client
      // reads it). Its JSON schema is a constant the extension's specification gives, the same for
      // every receipt: about 1.1 kB of every paid answer's PAYMENT-RESPONSE once encoded.
      return ext?.info ? { info: ext.info } : null;
    },
  };
}
