/**
 * `GET /trust/tlog-proof?index=N`: ledger entry N as a c2sp.org/tlog-proof@v1, verifiable offline
 * against a policy (docs/trust-and-proofs.md#offline-proofs): the entry's JSON as the extra data
 * (its SHA-256 is the leaf), the RFC 6962 inclusion proof, and the checkpoint it proves against.
 * With witnesses that checkpoint is the newest one holding the entry that reached the quorum, with
 * its cosignatures; until one does the answer is 503 checkpoint_pending with Retry-After. Without
 * witnesses it is the checkpoint of the current head.
 */
import { errorReply } from '../../errors.ts';
import { formatTlogProof } from '../../receipt-checks/tlog-proof.ts';
import type { CheckpointNote, CosignedCheckpoint } from '../../tlog/checkpoint-witnessing.ts';
import type { LedgerReader } from '../../ledger/ledger-reader.ts';
import type { Route } from '../server/route.ts';
import { intParam, queryParams } from './trust-query.ts';

/** Seconds a client waits before asking again for a proof whose checkpoint is being cosigned. */
export const TLOG_PROOF_RETRY_SECONDS = 1;

export interface TlogProofRouteConfig {
  readonly ledger: Pick<LedgerReader, 'head' | 'entry' | 'proof'>;
  /** The witnessed checkpoints (null: no witnesses configured). */
  readonly witnessed: { covering(index: number): CosignedCheckpoint | null } | null;
  /** The signed checkpoint of the current head. */
  readonly signHead: () => Promise<CheckpointNote>;
}

async function checkpointFor(config: Readonly<TlogProofRouteConfig>, index: number): Promise<CheckpointNote | null> {
  if (config.witnessed === null) return config.signHead();
  const cosigned = config.witnessed.covering(index);
  return cosigned === null ? null : { size: cosigned.size, note: cosigned.note + [...cosigned.cosignatures.values()].join('') };
}

/** The route. */
export function createTlogProofRoute(config: Readonly<TlogProofRouteConfig>): Route {
  return {
    method: 'GET',
    path: '/trust/tlog-proof',
    async handler(req) {
      const q = queryParams(req.query, ['index']);
      if (!q.ok) return q.reply;
      const index = intParam(q.params, 'index', { min: 0, max: Number.MAX_SAFE_INTEGER });
      if (!index.ok) return index.reply;
      if (index.value >= config.ledger.head().treeSize)
        return errorReply({ error: 'not_found', param: 'index', message: `no ledger entry ${index.value} yet` });
      const checkpoint = await checkpointFor(config, index.value);
      if (checkpoint === null)
        return errorReply(
          { error: 'checkpoint_pending', message: `no checkpoint holding entry ${index.value} has its witnesses' cosignatures yet; retry shortly` },
          { 'Retry-After': String(TLOG_PROOF_RETRY_SECONDS) },
        );
      const proof = config.ledger.proof(index.value, checkpoint.size, 'rfc6962');
      const entry = config.ledger.entry(index.value);
      if (!proof.ok || entry === null)
        return errorReply({ error: 'not_found', param: 'index', message: `no ledger entry ${index.value} under the checkpoint` });
      const body = formatTlogProof({
        index: index.value,
        extra: Buffer.from(JSON.stringify(entry), 'utf8'),
        proof: proof.value.auditPath.map((h) => new Uint8Array(Buffer.from(h, 'hex'))),
        checkpoint: checkpoint.note,
      });
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, body };
    },
  };
}
