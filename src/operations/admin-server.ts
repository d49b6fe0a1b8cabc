/**
 * The operator's admin listener (docs/contract.md#kill-switch): a second uWS listener bound to
 * 127.0.0.1 only, on its own port, every route behind a bearer token. It drives the kill switch:
 * `GET /kill-switch`, `POST /kill-switch/activate`, `POST /kill-switch/release`, the two POSTs with
 * an optional JSON body `{"reason": "..."}` that is written into the public audit entry. With
 * payment channels, `POST /channels/claim` claims every owed voucher and sweeps the funds now.
 */
import { errorReply, type HttpReply } from '../errors.ts';
import { auditReasonProblem } from '../ledger/ledger-entry.ts';
import type { KillSwitch, KillSwitchTransition } from './kill-switch.ts';
import { createBearerCheck, resolveAdminToken } from './admin-token.ts';
import type { HttpRequestData, Route } from '../http/server/route.ts';
import { createHttpServer } from '../http/server/server.ts';

/** The only interface the admin listener binds: never reachable from another host. */
export const ADMIN_HOST = '127.0.0.1';

export interface AdminServerConfig {
  /** 0 picks a free port. */
  readonly port: number;
  /** Configured bearer token, or null to use (and create) `<dataDir>/admin-token`. */
  readonly token: string | null;
  readonly dataDir: string;
  readonly killSwitch: KillSwitch;
  /** Payment channels, when offered: `POST /channels/claim` claims and sweeps what they owe now. */
  readonly channels?: { tick(force: boolean): Promise<void>; status(): unknown } | null;
}

export interface AdminServer {
  /** Binds 127.0.0.1:port; resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
  /** The token file (to print), or null when the token came from configuration. */
  readonly tokenPath: string | null;
  /** True when this start generated the token file. */
  readonly tokenCreated: boolean;
}

const JSON_TYPE = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } as const;
const json = (status: number, body: unknown): HttpReply => ({ status, headers: JSON_TYPE, body: JSON.stringify(body) });
const badBody = (message: string): HttpReply => errorReply({ error: 'invalid_request', message });

/** Reads the optional `{reason}` body: empty, or a JSON object with only `reason`. */
export function parseReasonBody(body: Buffer | null): { ok: true; reason: string | undefined } | { ok: false; reply: HttpReply } {
  const text = body?.toString('utf8').trim() ?? '';
  if (text === '') return { ok: true, reason: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reply: badBody('body must be empty or a JSON object {"reason": "..."}') };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reply: badBody('body must be a JSON object') };
  const extra = Object.keys(parsed).find((k) => k !== 'reason');
  if (extra !== undefined) return { ok: false, reply: badBody(`unknown field "${extra.slice(0, 64)}"; only "reason" is accepted`) };
  const reason = (parsed as { reason?: unknown }).reason;
  if (reason === undefined) return { ok: true, reason: undefined };
  const problem = auditReasonProblem(reason);
  return problem ? { ok: false, reply: badBody(problem) } : { ok: true, reason: reason as string };
}

function transitionRoute(path: string, run: (reason: string | undefined) => Promise<KillSwitchTransition>): Route {
  return {
    method: 'POST',
    path,
    async handler(req) {
      const parsed = parseReasonBody(req.body);
      if (!parsed.ok) return parsed.reply;
      const { state, changed } = await run(parsed.reason);
      return json(200, { ...state, changed });
    },
  };
}

function guarded(route: Route, authorized: (header: string | undefined) => boolean): Route {
  const unauthorized = errorReply(
    { error: 'unauthorized', message: 'a valid Authorization: Bearer <admin token> header is required' },
    { 'WWW-Authenticate': 'Bearer realm="admin"' },
  );
  return { ...route, handler: (req: HttpRequestData) => (authorized(req.headers.authorization) ? route.handler(req) : unauthorized) };
}

/** Creates the admin listener; nothing is bound until `listen()`. */
export function createAdminServer(config: Readonly<AdminServerConfig>): AdminServer {
  const { token, path, created } = resolveAdminToken(config.token, config.dataDir);
  const authorized = createBearerCheck(token);
  const ks = config.killSwitch;
  const routes: Route[] = [
    { method: 'GET', path: '/kill-switch', handler: () => json(200, ks.state()) },
    transitionRoute('/kill-switch/activate', (reason) => ks.activate(reason)),
    transitionRoute('/kill-switch/release', (reason) => ks.release(reason)),
  ];
  const channels = config.channels;
  if (channels)
    routes.push({ method: 'POST', path: '/channels/claim', handler: async () => json(200, await channels.tick(true).then(() => channels.status())) });
  const server = createHttpServer({ routes: routes.map((r) => guarded(r, authorized)) });
  return {
    listen: () => server.listen(ADMIN_HOST, config.port),
    close: () => server.close(),
    tokenPath: path,
    tokenCreated: created,
  };
}
