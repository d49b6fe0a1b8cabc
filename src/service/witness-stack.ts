/**
 * The witnessing of the log (`--witness URL=VKEY`, `--witness-quorum`): each configured witness as
 * an endpoint whose answers are kept only when its cosignature of the submitted checkpoint
 * verifies (in the pool), and the rounds that submit each new checkpoint to them. Null when no
 * witness is configured.
 */
import type { Config } from '../config.ts';
import type { WorkerPool } from '../pool/worker-pool.ts';
import { createCheckpointWitnessing, type CheckpointNote, type CheckpointWitnessing, type WitnessEndpoint } from '../tlog/checkpoint-witnessing.ts';
import { cosignatureCandidates, decodeCosignerKey } from '../tlog/cosignature.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { parseNote } from '../tlog/signed-note.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

export interface WitnessStackConfig {
  readonly options: Pick<Config, 'witnesses' | 'witnessQuorum'>;
  readonly ledger: Pick<Ledger, 'head' | 'consistency' | 'onAppend'>;
  readonly pool: Pick<WorkerPool<PoolTasks>, 'runTask'>;
  readonly signHead: () => Promise<CheckpointNote>;
}

/** What /health shows of a witness URL: scheme and host only (a path or userinfo may be a credential). */
export function witnessLabel(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

function endpointOf(config: Readonly<WitnessStackConfig>, url: string, vkey: string): WitnessEndpoint {
  const key = decodeCosignerKey(vkey);
  // Config validated every entry: a bad one here is a bug.
  if (!key) throw new Error('a configured witness vkey does not decode');
  return {
    url,
    name: key.name,
    label: witnessLabel(url),
    async acceptCosignatures(lines, note) {
      const parsed = parseNote(note);
      if (!parsed.ok) return [];
      const candidates = cosignatureCandidates(parsed.value.text, lines, [key]);
      if (candidates.length === 0) return [];
      const verdicts = await config.pool.runTask('verifyEd25519Batch', { checks: candidates.map((c) => c.check) });
      return candidates.filter((_, i) => verdicts[i]).map((c) => c.line);
    },
  };
}

/** The witnessing of the ledger's checkpoints, or null without witnesses; started by the caller. */
export function createWitnessStack(config: Readonly<WitnessStackConfig>): CheckpointWitnessing | null {
  const { witnesses, witnessQuorum } = config.options;
  if (witnesses.length === 0) return null;
  return createCheckpointWitnessing({
    witnesses: witnesses.map((w) => endpointOf(config, w.url, w.vkey)),
    quorum: witnessQuorum,
    ledger: config.ledger,
    signHead: config.signHead,
  });
}
