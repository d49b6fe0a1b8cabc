/**
 * The witness's add-checkpoint decisions (c2sp.org/tlog-witness) against a real log of the trust
 * layer's modules: first sight, growth with a consistency proof, a stale old size (409 with the
 * size known), a bad proof (422), unknown logs (404) and keys (403), malformed bodies (400), a
 * fork of the same size or larger (refused, also after a restart from the data dir), and two
 * racing submissions that must never roll the recorded size back.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cosignatureLine, cosignerKey, decodeCosignerKey, encodeCosignerKey, verifiedCosignatures } from '../../../src/tlog/cosignature.ts';
import { createEd25519Signer } from '../../../src/chain/keys/ed25519.ts';
import { publicKeyOfSeed } from '../../../src/receipts/identity.ts';
import { parseNote } from '../../../src/tlog/signed-note.ts';
import { addCheckpointBody } from '../../../src/tlog/witness-client.ts';
import { addCheckpoint, TLOG_SIZE_TYPE } from '../../../src/witness/add-checkpoint.ts';
import { createCheckpointVerifier, logKeysByOrigin } from '../../../src/witness/witness-program.ts';
import { openWitnessState, WITNESS_STATE_FILE } from '../../../src/witness/witness-state.ts';
import { createTestLog, seedOf } from '../../helpers/tlog-fixture.ts';

const W_SEED = seedOf('witness-1');
const W_KEY = cosignerKey('witness.example/w1', publicKeyOfSeed(W_SEED));
const W_SIGN = createEd25519Signer(W_SEED);
const NOW = 1_790_000_000;
const dirs: string[] = [];

function witnessAt(dataDir: string, logs: readonly string[]) {
  const state = openWitnessState({ dataDir });
  const verify = createCheckpointVerifier(logKeysByOrigin(logs));
  const config = { state, verify, cosign: (text: string) => cosignatureLine(W_KEY, W_SIGN, text, NOW) };
  return (oldSize: number, proof: readonly Uint8Array[], note: string) => addCheckpoint(config, addCheckpointBody({ oldSize, proof, note }));
}

function fresh(logs: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'witness-'));
  dirs.push(dir);
  return { dir, submit: witnessAt(dir, logs) };
}

const textOf = (note: string): string => {
  const parsed = parseNote(note);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value.text;
};

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('witness add-checkpoint', () => {
  it('cosigns a first checkpoint, then one that extends it, and keeps the view on disk (0600)', async () => {
    const log = createTestLog();
    log.append('a', 'b', 'c');
    const { dir, submit } = fresh([log.vkey]);
    const first = await log.checkpoint();
    const r1 = await submit(0, [], first);
    expect(r1.status).toBe(200);
    const vkey = decodeCosignerKey(encodeCosignerKey(W_KEY));
    const found = verifiedCosignatures(textOf(first), r1.body.split('\n').filter(Boolean), [vkey!]);
    expect(found.map((c) => c.timestamp)).toEqual([NOW]);
    log.append('d', 'e');
    const r2 = await submit(3, log.consistency(3), await log.checkpoint());
    expect(r2.status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, WITNESS_STATE_FILE), 'utf8')).logs['intel.example/test-log'].size).toBe(5);
    expect(statSync(join(dir, WITNESS_STATE_FILE)).mode & 0o777).toBe(0o600);
  });

  it('answers 409 with the size it knows to a stale or unknown old size, in text/x.tlog.size', async () => {
    const log = createTestLog();
    log.append('a', 'b', 'c', 'd');
    const { submit } = fresh([log.vkey]);
    expect((await submit(0, [], await log.checkpoint(2))).status).toBe(200);
    const stale = await submit(0, [], await log.checkpoint());
    expect(stale).toEqual({ status: 409, contentType: TLOG_SIZE_TYPE, body: '2\n' });
    expect((await submit(2, log.consistency(2), await log.checkpoint())).status).toBe(200);
  });

  it('refuses a proof that does not verify (422) and keeps its view', async () => {
    const log = createTestLog();
    log.append('a', 'b', 'c');
    const { submit } = fresh([log.vkey]);
    await submit(0, [], await log.checkpoint());
    log.append('d', 'e', 'f');
    const proof = log.consistency(3);
    proof[0] = new Uint8Array(32).fill(9);
    expect((await submit(3, proof, await log.checkpoint())).status).toBe(422);
    expect((await submit(3, [], await log.checkpoint())).status).toBe(422);
    expect((await submit(3, log.consistency(3), await log.checkpoint())).status).toBe(200);
  });

  it('refuses a fork of the log signed by the same key, the same size or larger, also after a restart', async () => {
    const honest = createTestLog();
    const forked = createTestLog();
    honest.append('a', 'b', 'c', 'd');
    forked.append('a', 'b', 'x', 'y');
    const { dir, submit } = fresh([honest.vkey]);
    expect((await submit(0, [], await honest.checkpoint())).status).toBe(200);
    const sameSize = await submit(4, [], await forked.checkpoint());
    expect(sameSize).toMatchObject({ status: 409, body: '4\n' });
    forked.append('z');
    expect((await submit(4, forked.consistency(4), await forked.checkpoint())).status).toBe(422);
    // A restart reads the view back: the fork is still refused.
    const again = witnessAt(dir, [honest.vkey]);
    expect((await again(4, [], await forked.checkpoint(4))).status).toBe(409);
    expect((await again(4, forked.consistency(4), await forked.checkpoint())).status).toBe(422);
    honest.append('e');
    expect((await again(4, honest.consistency(4), await honest.checkpoint())).status).toBe(200);
  });

  it('answers 404 for an unknown origin, 403 for an unknown key, 400 for malformed bodies', async () => {
    const log = createTestLog();
    const stranger = createTestLog('other-key', 'elsewhere.example/log');
    const impostor = createTestLog('other-key');
    log.append('a');
    stranger.append('a');
    impostor.append('a');
    const { submit } = fresh([log.vkey]);
    expect((await submit(0, [], await stranger.checkpoint())).status).toBe(404);
    expect((await submit(0, [], await impostor.checkpoint())).status).toBe(403);
    expect((await submit(2, [], await log.checkpoint())).status).toBe(400);
    const state = openWitnessState({ dataDir: fresh([]).dir });
    const verify = createCheckpointVerifier(logKeysByOrigin([log.vkey]));
    const raw = (body: string) => addCheckpoint({ state, verify, cosign: () => '' }, body);
    for (const body of ['', 'old 01\n\n', 'old 1\nnot-base64\n\n', 'old x\n\n', `old 0\n${'A'.repeat(44)}\n\n`, 'old 0\n\nno note'])
      expect((await raw(body)).status, JSON.stringify(body)).toBe(400);
  });

  it('never rolls back: of two racing submissions from the same size, the second is answered 409', async () => {
    const log = createTestLog();
    log.append('a', 'b');
    const { submit } = fresh([log.vkey]);
    await submit(0, [], await log.checkpoint());
    const small = await log.checkpoint(2);
    log.append('c', 'd', 'e');
    const [big, late] = await Promise.all([submit(2, log.consistency(2), await log.checkpoint()), submit(2, [], small)]);
    expect(big.status).toBe(200);
    expect(late).toMatchObject({ status: 409, body: '5\n' });
  });
});
