/**
 * A witness of our own (c2sp.org/tlog-witness): the logs it witnesses (one vkey each; the log's
 * origin is its key name, as our log and Go's sumdb name them), its signing key, its durable
 * state, and the listener. `x402-intel witness serve` runs it; tests start it in process.
 */
import { type CheckpointVerifier, addCheckpoint } from './add-checkpoint.ts';
import { cosignatureLine } from '../tlog/cosignature.ts';
import { decodeVerifierKey, type NoteVerifierKey, parseNote, verifyNote } from '../tlog/signed-note.ts';
import { parseCheckpointText } from '../tlog/tlog-checkpoint.ts';
import { loadWitnessKey } from './witness-key.ts';
import { startWitnessServer, type WitnessServer } from './witness-server.ts';
import { openWitnessState } from './witness-state.ts';

export interface WitnessProgramConfig {
  readonly keyFile: string;
  /** The vkeys of the logs witnessed. */
  readonly logs: readonly string[];
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Seconds since the Epoch, for the cosignature's timestamp. */
  readonly nowSeconds?: () => number;
  readonly log?: (line: string) => void;
}

export interface RunningWitness extends WitnessServer {
  /** The witness's own vkey (type 0x04), for the logs' --witness option and verifiers' policies. */
  readonly vkey: string;
  readonly name: string;
}

/** The log keys by origin; throws naming the first vkey that is not an Ed25519 log key. */
export function logKeysByOrigin(vkeys: readonly string[]): Map<string, NoteVerifierKey[]> {
  const byOrigin = new Map<string, NoteVerifierKey[]>();
  for (const vkey of vkeys) {
    const decoded = decodeVerifierKey(vkey);
    if (!decoded.ok) throw new Error(`--log ${vkey.slice(0, 60)}: ${decoded.reason}`);
    byOrigin.set(decoded.value.keyName, [...(byOrigin.get(decoded.value.keyName) ?? []), decoded.value]);
  }
  return byOrigin;
}

/** Reads a submitted checkpoint against the witnessed logs' keys. */
export function createCheckpointVerifier(byOrigin: ReadonlyMap<string, readonly NoteVerifierKey[]>): CheckpointVerifier {
  return (note) => {
    const parsed = parseNote(note);
    if (!parsed.ok) return { ok: false, kind: 'malformed', reason: parsed.reason };
    const body = parseCheckpointText(parsed.value.text);
    if (!body.ok) return { ok: false, kind: 'malformed', reason: body.reason };
    const keys = byOrigin.get(body.value.origin);
    if (!keys) return { ok: false, kind: 'unknown_log', reason: 'this witness does not witness that origin' };
    const verified = verifyNote(note, keys);
    if (!verified.ok) return { ok: false, kind: 'bad_signature', reason: 'no signature by the log key verifies' };
    const { origin, treeSize, rootHash } = body.value;
    return { ok: true, checkpoint: { origin, size: treeSize, root: rootHash, text: parsed.value.text } };
  };
}

/** Loads the key and state, then listens. */
export async function startWitness(config: Readonly<WitnessProgramConfig>): Promise<RunningWitness> {
  if (config.logs.length === 0) throw new Error('a witness needs at least one --log <vkey>');
  const byOrigin = logKeysByOrigin(config.logs);
  const key = loadWitnessKey(config.keyFile);
  const state = openWitnessState({ dataDir: config.dataDir });
  const nowSeconds = config.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const server = await startWitnessServer({
    host: config.host,
    port: config.port,
    log: config.log,
    addCheckpoint: (body) =>
      addCheckpoint({ state, verify: createCheckpointVerifier(byOrigin), cosign: (text) => cosignatureLine(key.key, key.sign, text, nowSeconds()) }, body),
  });
  return { ...server, vkey: key.vkey, name: key.key.name };
}
