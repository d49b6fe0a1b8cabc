/**
 * The door every WebSocket upgrade goes through, feeds (feed-sockets.ts) and paid streams
 * (stream-sockets.ts) alike: the request copied before anything else, a draining server refuses,
 * the free limit asks as for a GET (a socket is never paid by its upgrade's header), then the
 * kind's own socket caps. A refusal is written here and the upgrade gets null.
 */
import type uWS from 'uWebSockets.js';
import { errorReply, type HttpReply } from '../../errors.ts';
import { clientKeyOf } from '../../preview/client-key.ts';
import { copyHeaders } from './request-copy.ts';
import type { HttpRequestData } from './route.ts';

/** What an upgrade asks of the server. */
export interface UpgradeDoor {
  /** True while the server drains: upgrades are refused. */
  readonly refuse: () => boolean;
  /** Writes a refusal and closes the connection. */
  readonly write: (res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean) => void;
  /** The client's address of an upgrade (the peer, or the hop a trusted proxy names). */
  readonly clientOf: (res: uWS.HttpResponse, forwardedFor: string | undefined) => string;
  /** The server's admission (the free rate limit): a reply refuses the upgrade. */
  readonly admit?: (req: Pick<HttpRequestData, 'method' | 'remoteIp' | 'headers' | 'path'>) => HttpReply | null;
}

/** An upgrade let through: what `res.upgrade` needs, and who asked. */
export interface AdmittedUpgrade {
  readonly key: string;
  readonly protocol: string;
  readonly extensions: string;
  readonly remoteIp: string;
  readonly client: string;
}

const SHUTTING_DOWN = (): HttpReply => errorReply({ error: 'shutting_down', message: 'the service is shutting down' }, { 'Retry-After': '5' });

/** Admits the upgrade of `path`, or writes its refusal and returns null; `caps` is the kind's socket bound for a client key. */
export function admitUpgrade(
  res: uWS.HttpResponse,
  req: uWS.HttpRequest,
  door: UpgradeDoor,
  path: string,
  caps: (client: string) => HttpReply | null,
): AdmittedUpgrade | null {
  const key = req.getHeader('sec-websocket-key');
  const protocol = req.getHeader('sec-websocket-protocol');
  const extensions = req.getHeader('sec-websocket-extensions');
  const headers = copyHeaders(req);
  const remoteIp = door.clientOf(res, headers['x-forwarded-for']);
  const refuseWith = (reply: HttpReply): null => {
    door.write(res, reply, true);
    return null;
  };
  if (door.refuse()) return refuseWith(SHUTTING_DOWN());
  delete headers['payment-signature'];
  delete headers['x-payment'];
  const limited = door.admit?.({ method: 'GET', remoteIp, headers, path });
  if (limited) return refuseWith(limited);
  const client = clientKeyOf(remoteIp);
  const refused = caps(client);
  return refused ? refuseWith(refused) : { key, protocol, extensions, remoteIp, client };
}
