/**
 * The admin listener's bearer token: given by the operator, or generated once into the data dir
 * (mode 0600) and reused on every start. Callers print the file's path, never the token.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { createFileOnceSync } from '../durable/atomic-replace.ts';
import { makeDirSync } from '../durable/file-sync.ts';
import { join } from 'node:path';
import { ConfigError } from '../errors.ts';

/** File name of the generated token inside the data dir. */
export const ADMIN_TOKEN_FILE_NAME = 'admin-token';
/** Shortest token accepted, characters: shorter ones are guessable. */
export const MIN_ADMIN_TOKEN_CHARS = 16;
/** Random bytes of a generated token (base64url: 43 characters). */
const GENERATED_TOKEN_BYTES = 32;
const TOKEN_FILE_MODE = 0o600;
const TOKEN_RE = /^[\x21-\x7e]+$/;

/** The token in use and where it came from. */
export interface AdminToken {
  readonly token: string;
  /** The file holding it, or null when it came from configuration. */
  readonly path: string | null;
  /** True when this start generated the file. */
  readonly created: boolean;
}

function checkToken(token: string, source: string): string {
  if (token.length < MIN_ADMIN_TOKEN_CHARS || !TOKEN_RE.test(token)) {
    throw new ConfigError([`admin token from ${source} must be at least ${MIN_ADMIN_TOKEN_CHARS} printable ASCII characters without spaces`]);
  }
  return token;
}

/** The configured token, else the one in `<dataDir>/admin-token`, generated when absent. */
export function resolveAdminToken(configured: string | null, dataDir: string): AdminToken {
  if (configured !== null) return { token: checkToken(configured, 'configuration'), path: null, created: false };
  const path = join(dataDir, ADMIN_TOKEN_FILE_NAME);
  let created = false;
  if (!existsSync(path)) {
    makeDirSync(dataDir, 0o777);
    // Never overwrites a token another process created in the meantime.
    createFileOnceSync(path, `${randomBytes(GENERATED_TOKEN_BYTES).toString('base64url')}\n`, TOKEN_FILE_MODE);
    created = true;
  } else if ((statSync(path).mode & 0o077) !== 0) {
    chmodSync(path, TOKEN_FILE_MODE);
  }
  return { token: checkToken(readFileSync(path, 'utf8').trim(), path), path, created };
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker of `Authorization: Bearer <token>` values. Both sides are hashed first so the
 * comparison is constant-time whatever the presented length.
 */
export function createBearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const m = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
    return timingSafeEqual(digest(m?.[1] ?? ''), expected) && m !== null;
  };
}
