/**
 * A forked log (docs/security.md#witnesses): the operator restores an old copy of the data dir and
 * the service, with the same key, appends other entries, so two checkpoints of the same size
 * signed by the same key disagree. Our two witnesses, which cosigned the first history, refuse
 * every checkpoint of the fork (409 at the same size, 422 beyond it, also across their restarts),
 * and the CLI's offline policy check fails a paid call's proof under the fork's checkpoint: its
 * log signature verifies, its cosignatures do not exist, and the first history's cannot be copied.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningService } from '../../src/service/service.ts';
import { decodeVerifierKey, parseNote } from '../../src/tlog/signed-note.ts';
import { openCheckpoint } from '../../src/tlog/tlog-checkpoint.ts';
import { addCheckpointBody } from '../../src/tlog/witness-client.ts';
import type { RunningWitness } from '../../src/witness/witness-program.ts';
import { runCliIn } from '../helpers/cli-in-process.ts';
import { writeSolanaKeypair } from '../helpers/cli-process.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { makeLogIdentity, startTestWitnesses, startWitnessedService, TEST_LOG_ORIGIN, waitForCosigned, witnessHealth } from '../helpers/witnessed-service.ts';

const FORK_TEST_MS = 300_000;
let dir: string;
let work: string;
let localnet: Awaited<ReturnType<typeof startTestLocalnet>>;
let identity: ReturnType<typeof makeLogIdentity>;
let witnesses: RunningWitness[];
const running = new Set<RunningService>();

const start = async (dataDir: string, quorum?: number) => {
  const s = await startWitnessedService({
    upstreams: localnet.upstreams,
    dataDir,
    keypairPath: identity.keypairPath,
    witnesses,
    ...(quorum === undefined ? {} : { quorum }),
  });
  running.add(s);
  return s;
};
const stop = async (s: RunningService) => {
  running.delete(s);
  await s.close();
};
/** Two audit entries through the operator's kill switch (activate, release). */
const twoEntries = async (s: RunningService, why: string) => {
  await s.killSwitch.activate(`${why} on`);
  await s.killSwitch.release(`${why} off`);
};
const checkpointOf = (note: string) => {
  const key = decodeVerifierKey(identity.vkey);
  const opened = key.ok ? openCheckpoint(note, key.value, TEST_LOG_ORIGIN) : null;
  if (!opened?.ok) throw new Error(`not a checkpoint of the log: ${opened ? opened.reason : 'bad key'}`);
  return opened.value.checkpoint;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'log-fork-'));
  work = join(dir, 'work');
  mkdirSync(join(work, 'home'), { recursive: true });
  identity = makeLogIdentity(dir);
  witnesses = await startTestWitnesses(dir, 2, identity.vkey);
  localnet = await startTestLocalnet();
  writeSolanaKeypair(join(work, 'payer.json'));
}, 120_000);
afterAll(async () => {
  await Promise.all([...running].map((s) => s.close()));
  await Promise.all(witnesses?.map((w) => w.close()) ?? []);
  await localnet?.localnet.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a forked log', () => {
  it(
    'is refused by both witnesses, and its proof fails the offline policy check',
    async () => {
      const live = join(dir, 'data');
      let honest = await start(live);
      await twoEntries(honest, 'first');
      await waitForCosigned(honest.url, 2);
      await stop(honest);
      cpSync(live, join(dir, 'backup'), { recursive: true });
      honest = await start(live);
      await twoEntries(honest, 'second');
      await waitForCosigned(honest.url, 4);
      const honestNote = await (await fetch(`${honest.url}/checkpoint`)).text();
      expect(checkpointOf(honestNote).treeSize).toBe(4);
      await stop(honest);

      // The restored backup, same key, other entries: a paid call at index 2, then an audit entry.
      const fork = await start(join(dir, 'backup'), 0);
      const fund = await runCliIn(work, ['localnet', 'fund', '--keypair', 'payer.json', '--usdc', '1', '--url', fork.url]);
      expect(fund.code, fund.stderr).toBe(0);
      const call = await runCliIn(work, ['call', '/v1/epoch', '--keypair', 'payer.json', '--url', fork.url, '--json']);
      expect(call.code, call.stderr).toBe(0);
      const doc = JSON.parse(call.stdout);
      expect(doc.receipt.ledgerIndex).toBe(2);
      expect(doc.receipt.tlogProofFile, call.stderr).toMatch(/\.tlog-proof$/);
      await fork.killSwitch.activate('fork');
      const forkNote = await vi.waitFor(
        async () => {
          const note = await (await fetch(`${fork.url}/checkpoint`)).text();
          if (checkpointOf(note).treeSize !== 4) throw new Error('the fork has not served size 4 yet');
          return note;
        },
        { timeout: 60_000, interval: 100 },
      );
      // Two checkpoints of size 4, both signed by the log's key, with different roots: a fork.
      expect(Buffer.from(checkpointOf(forkNote).rootHash).equals(Buffer.from(checkpointOf(honestNote).rootHash))).toBe(false);
      const forkText = parseNote(forkNote);
      expect(
        forkText.ok &&
          forkNote
            .slice(forkText.value.text.length + 1)
            .split('\n')
            .filter(Boolean).length,
      ).toBe(1);
      for (const w of witnesses) {
        const same = await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body: addCheckpointBody({ oldSize: 4, proof: [], note: forkNote }) });
        expect([same.status, same.headers.get('content-type'), await same.text()]).toEqual([409, 'text/x.tlog.size', '4\n']);
      }
      await fork.killSwitch.release('fork');
      await vi.waitFor(
        async () => {
          const h = await witnessHealth(fork.url);
          if (!h.witnesses.every((w) => w.error === 'HTTP 422')) throw new Error(`witnesses: ${JSON.stringify(h.witnesses)}`);
        },
        { timeout: 60_000, interval: 100 },
      );
      const h = await witnessHealth(fork.url);
      expect(h.cosignedSize === null || h.cosignedSize >= 0).toBe(true);
      expect(h.witnesses.map((w) => w.cosignedSize)).toEqual([null, null]);

      // Offline, with the policy every verifier of this log holds: the fork's proof fails.
      writeFileSync(join(work, 'policy.json'), JSON.stringify({ log: identity.vkey, witnesses: witnesses.map((w) => w.vkey), quorum: 2 }));
      const verify = await runCliIn(work, ['verify-receipt', doc.receipt.file, '--policy', 'policy.json', '--json']);
      expect(verify.code).toBe(1);
      const failed = JSON.parse(verify.stdout).checks.filter((c: { ok: boolean }) => !c.ok);
      expect(failed.map((c: { name: string; detail: string }) => [c.name, c.detail])).toEqual([
        ["cosigned by at least 2 of the policy's 2 witness(es)", '0: none'],
      ]);
      // The first history's cosignatures copied onto the fork's proof count for nothing.
      const honestLines = honestNote
        .slice(parseNote(honestNote).ok ? honestNote.lastIndexOf('\n\n') + 2 : 0)
        .split('\n')
        .filter((l) => l.includes('witness.test/'));
      expect(honestLines).toHaveLength(2);
      const spliced = `${readFileSync(doc.receipt.tlogProofFile, 'utf8')}${honestLines.map((l) => `${l}\n`).join('')}`;
      writeFileSync(join(work, 'spliced.tlog-proof'), spliced);
      const copied = await runCliIn(work, ['verify-receipt', doc.receipt.file, '--policy', 'policy.json', '--proof', 'spliced.tlog-proof', '--json']);
      expect(copied.code).toBe(1);
      expect(JSON.parse(copied.stdout).checks.find((c: { name: string }) => c.name.startsWith('cosigned by')).detail).toBe('0: none');
    },
    FORK_TEST_MS,
  );
});
