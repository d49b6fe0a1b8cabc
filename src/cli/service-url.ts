/**
 * Which service the CLI talks to: `--url`, else $X402_INTEL_URL, else the local default that
 * `npm start` serves. A base URL may carry a path prefix (a service behind a proxy at /intel);
 * it never carries a query, a fragment or credentials.
 */
import { usageError } from './cli-error.ts';

/** Where `npm start` listens by default. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8402';
/** The environment variable that names the service when --url is absent. */
export const SERVICE_URL_ENV = 'X402_INTEL_URL';
/** Said when the service cannot be reached: the usual cause is a service started elsewhere than the default. */
export const SERVICE_URL_HINT = `is the service running there? Name another with --url <base> or $${SERVICE_URL_ENV} (npm start serves ${DEFAULT_SERVICE_URL} unless given --port)`;

/** The normalized base URL (no trailing slash); throws a usage error for anything but a plain http(s) URL. */
export function resolveServiceUrl(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env[SERVICE_URL_ENV]?.trim();
  const raw = flag ?? (fromEnv ? fromEnv : DEFAULT_SERVICE_URL);
  const source = flag !== undefined ? '--url' : fromEnv ? `$${SERVICE_URL_ENV}` : 'the default URL';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`${source} "${raw.slice(0, 80)}" is not a URL (e.g. ${DEFAULT_SERVICE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${source} must be an http:// or https:// URL`);
  if (url.username || url.password) throw usageError(`${source} must not carry credentials`);
  if (url.search || url.hash) throw usageError(`${source} is a base URL: no query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** `base` + `pathAndQuery` (which starts with a slash). */
export function serviceHref(base: string, pathAndQuery: string): string {
  return `${base}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
}

/** True when the base URL's host is this machine (the only place an embedded localnet is trusted). */
export function isLoopbackUrl(base: string): boolean {
  const host = new URL(base).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
