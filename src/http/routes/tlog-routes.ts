/**
 * The ledger as a C2SP tiled transparency log (docs/trust-and-proofs.md#checkpoints-and-tiles):
 * `GET /checkpoint`, the signed note of the current tree head (origin, size, base64 RFC 6962
 * root), and `GET /tile/<L>/<N>[.p/<W>]`, `GET /tile/entries/<N>[.p/<W>]`, the tree's hash tiles
 * and entry bundles, read from stored nodes. Same leaves and roots as `format=rfc6962` proofs, on
 * the file WAL and on PostgreSQL alike; a checkpoint's Ed25519 signature is deterministic, so
 * every instance with the one identity serves the same bytes for the same size.
 */
import { ConfigError, errorReply, type HttpReply } from '../../errors.ts';
import type { LedgerReader } from '../../ledger/ledger-reader.ts';
import { type CheckpointNoteSigner, createCheckpointNoteSigner } from '../../tlog/checkpoint-note-signer.ts';
import { encodeVerifierKey, isValidKeyName, type NoteSigner } from '../../tlog/signed-note.ts';
import { parseTilePath, TILE_WIDTH } from '../../ledger/tlog-tiles.ts';
import type { Route } from '../server/route.ts';
import { parameterless } from './trust-query.ts';

/** Full tiles never change: any cache may keep them for a year. */
export const FULL_TILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Partial tiles are superseded by wider ones as the log grows. */
export const PARTIAL_TILE_CACHE_SECONDS = 60;
const TILE_PREFIX = '/tile/';
const TILE_PATH_HELP = 'a tile path is /tile/<L>/<N>[.p/<W>] or /tile/entries/<N>[.p/<W>], N in x-prefixed groups of three digits';

/** Configuration of the tiled-log routes. */
export interface TlogRoutesConfig {
  readonly ledger: Pick<LedgerReader, 'head' | 'tile'>;
  /** The service identity (only its public key is read). */
  readonly identity: { readonly publicKey: string; readonly publicKeyBytes: Uint8Array };
  /** Ed25519 signature with the identity (the pool's task). */
  readonly sign: NoteSigner['sign'];
  /** `--log-origin`; null: defaultLogOrigin of the next two. */
  readonly origin: string | null;
  readonly publicUrl: string | null;
  readonly serviceName: string;
  /** With witnesses: the cosigned checkpoint `/checkpoint` serves (null until one was submitted: the head's then). */
  readonly witnessed?: { servedNote(): string | null } | null;
}

/** The routes, and the note key fields `/trust/pubkey` publishes. */
export interface TlogRoutes {
  /** The signed checkpoint `/checkpoint` serves, for anything else that needs it. */
  readonly checkpoints: CheckpointNoteSigner;
  readonly routes: Route[];
  readonly prefixRoutes: Route[];
  readonly noteKey: Readonly<Record<string, string>>;
}

/**
 * The default origin: the public URL without its scheme and trailing slashes (the tlog-tiles
 * convention), else `<service name>/<base58 key>`, stable across restarts and ports. Characters
 * a note key name may not hold (spaces, `+`) become `-`.
 */
export function defaultLogOrigin(publicUrl: string | null, serviceName: string, publicKeyBase58: string): string {
  const raw = publicUrl ? publicUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '') : `${serviceName}/${publicKeyBase58}`;
  return raw.replace(/[\s\u0085+]/gu, '-');
}

function checkpointRoute(checkpoints: CheckpointNoteSigner, witnessed: TlogRoutesConfig['witnessed']): Route {
  return {
    method: 'GET',
    path: '/checkpoint',
    async handler() {
      const body = witnessed?.servedNote() ?? (await checkpoints.current()).note;
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, body };
    },
  };
}

function tileReply(config: Readonly<TlogRoutesConfig>, path: string): HttpReply {
  const parsed = parseTilePath(path.slice(TILE_PREFIX.length));
  if (!parsed.ok) return errorReply({ error: 'invalid_parameter', param: 'path', message: `${parsed.reason}: ${TILE_PATH_HELP}` });
  const bytes = config.ledger.tile(parsed.tile);
  if (!bytes) return errorReply({ error: 'not_found', message: 'the log is not yet large enough for this tile' });
  const cache = parsed.tile.width === TILE_WIDTH ? FULL_TILE_CACHE_CONTROL : `public, max-age=${PARTIAL_TILE_CACHE_SECONDS}`;
  return {
    status: 200,
    headers: { 'Content-Type': 'application/octet-stream', 'Cache-Control': cache },
    body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  };
}

/** `/checkpoint` (exact) and `/tile/` (prefix) routes, and the note key `/trust/pubkey` publishes. */
export function createTlogRoutes(config: Readonly<TlogRoutesConfig>): TlogRoutes {
  const origin = config.origin ?? defaultLogOrigin(config.publicUrl, config.serviceName, config.identity.publicKey);
  if (!isValidKeyName(origin)) throw new ConfigError([`the log origin ${JSON.stringify(origin)} is not a valid note key name (see --log-origin)`]);
  const checkpoints = createCheckpointNoteSigner({ ledger: config.ledger, origin, publicKey: config.identity.publicKeyBytes, sign: config.sign });
  const tiles: Route = { method: 'GET', path: TILE_PREFIX, handler: (req) => tileReply(config, req.path) };
  return {
    checkpoints,
    routes: [parameterless(checkpointRoute(checkpoints, config.witnessed))],
    prefixRoutes: [parameterless(tiles)],
    noteKey: { logOrigin: origin, noteKeyName: origin, noteVerifierKey: encodeVerifierKey(origin, config.identity.publicKeyBytes) },
  };
}
