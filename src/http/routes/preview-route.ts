/**
 * `GET /preview/<paid path>`: the free daily preview of a paid endpoint (docs/preview.md). A
 * prefix route: the paid path after `/preview` picks the catalog entry (404 when there is none),
 * and the preview caller does the rest with the connection's address as the client.
 */
import { CATALOG_BY_PATH } from '../../catalog/endpoints.ts';
import { errorReply, type HttpReply } from '../../errors.ts';
import type { PreviewCaller } from '../../preview/preview-caller.ts';
import type { AnyReply, Route } from '../server/route.ts';

/** Every preview path starts with this; what follows is the paid path. */
export const PREVIEW_PREFIX = '/preview/';

/**
 * A HEAD's 200 goes out as a stream's head: a preview's length is not known until it is computed
 * (which a HEAD never does), so the head carries no Content-Length rather than a wrong one.
 */
const headOnly = (reply: HttpReply): AnyReply => (reply.status === 200 ? { status: 200, headers: reply.headers ?? {}, stream: new ReadableStream() } : reply);

/** The prefix route of the previews; a HEAD says whether a preview would be given and uses nothing. */
export function createPreviewRoute(caller: PreviewCaller): Route<AnyReply> {
  return {
    method: 'GET',
    path: PREVIEW_PREFIX,
    handler(req) {
      const paidPath = req.path.slice(PREVIEW_PREFIX.length - 1);
      const entry = CATALOG_BY_PATH.get(paidPath);
      if (!entry)
        return errorReply({
          error: 'not_found',
          message: `no paid endpoint ${paidPath.slice(0, 256)} to preview; the paid paths are listed in /.well-known/x402`,
        });
      const head = req.method === 'HEAD';
      const answer = caller({ entry, query: req.query, remoteIp: req.remoteIp, signal: req.signal, head });
      return head ? answer.then(headOnly) : answer;
    },
  };
}
