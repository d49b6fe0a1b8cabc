/**
 * Two witnesses of our own cosign the live checkpoint of the real service on the embedded
 * localnet: a paid call through the CLI saves its receipt and its tlog-proof, the witnesses have
 * cosigned a checkpoint holding the entry (/checkpoint carries both cosignatures, /health their
 * sizes), and the proof verifies offline against a policy of the log key, both witness keys and a
 * quorum of 2, after the service and the witnesses are gone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/service.ts';
import { decodeCosignerKey, verifiedCosignatures } from '../../src/tlog/cosignature.ts';
import { decodeVerifierKey, parseNote } from '../../src/tlog/signed-note.ts';
import { openCheckpoint } from '../../src/tlog/tlog-checkpoint.ts';
import type { RunningWitness } from '../../src/witness/witness-program.ts';
import { runCliIn } from '../helpers/cli-in-process.ts';
import { writeSolanaKeypair } from '../helpers/cli-process.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { makeLogIdentity, startTestWitnesses, startWitnessedService, TEST_LOG_ORIGIN, waitForCosigned, witnessHealth } from '../helpers/witnessed-service.ts';

const PAID_TEST_MS = 240_000;
let dir: string;
let work: string;
let localnet: Awaited<ReturnType<typeof startTestLocalnet>>;
let witnesses: RunningWitness[];
let service: RunningService | null = null;
let logVkey: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'witness-cosign-'));
  work = join(dir, 'work');
  mkdirSync(join(work, 'home'), { recursive: true });
  const identity = makeLogIdentity(dir);
  logVkey = identity.vkey;
  witnesses = await startTestWitnesses(dir, 2, logVkey);
  localnet = await startTestLocalnet();
  service = await startWitnessedService({ upstreams: localnet.upstreams, dataDir: join(dir, 'data'), keypairPath: identity.keypairPath, witnesses });
  writeSolanaKeypair(join(work, 'payer.json'));
}, 120_000);
afterAll(async () => {
  await service?.close();
  await Promise.all(witnesses?.map((w) => w.close()) ?? []);
  await localnet?.localnet.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two witnesses of our own', () => {
  it(
    'cosign the live checkpoint; the paid call saves a tlog-proof that verifies offline against a quorum of 2',
    async () => {
      const url = service!.url;
      const fund = await runCliIn(work, ['localnet', 'fund', '--keypair', 'payer.json', '--usdc', '1', '--url', url]);
      expect(fund.code, fund.stderr).toBe(0);
      const call = await runCliIn(work, ['call', '/v1/epoch', '--keypair', 'payer.json', '--url', url, '--json']);
      expect(call.code, call.stderr).toBe(0);
      const doc = JSON.parse(call.stdout);
      const index: number = doc.receipt.ledgerIndex;
      expect(doc.receipt.tlogProofFile, call.stderr).toMatch(/\.tlog-proof$/);

      await waitForCosigned(url, index + 1);
      const health = await witnessHealth(url);
      expect(health).toMatchObject({ quorum: 2, cosignedSize: expect.any(Number) });
      expect(health.witnesses.map((w) => [w.name, w.error])).toEqual([
        ['witness.test/w1', null],
        ['witness.test/w2', null],
      ]);
      expect(health.witnesses.every((w) => w.url.startsWith('http://127.0.0.1:'))).toBe(true);

      // /checkpoint: the log's signature, then one cosignature per witness that verifies.
      const served = await (await fetch(`${url}/checkpoint`)).text();
      const logKey = decodeVerifierKey(logVkey);
      const opened = logKey.ok ? openCheckpoint(served, logKey.value, TEST_LOG_ORIGIN) : null;
      expect(opened?.ok).toBe(true);
      const note = parseNote(served);
      const lines = note.ok
        ? served
            .slice(note.value.text.length + 1)
            .split('\n')
            .filter(Boolean)
        : [];
      const keys = witnesses.map((w) => decodeCosignerKey(w.vkey)!);
      // Signature lines carry no order (the witnesses answer in any order): each witness once.
      const cosigners = verifiedCosignatures(note.ok ? note.value.text : '', lines, keys).map((c) => c.key.name);
      expect(cosigners.sort()).toEqual(['witness.test/w1', 'witness.test/w2']);

      // Offline: nothing of the service or the witnesses is left to ask.
      await service!.close();
      service = null;
      await Promise.all(witnesses.map((w) => w.close()));
      writeFileSync(join(work, 'policy.json'), JSON.stringify({ log: logVkey, witnesses: witnesses.map((w) => w.vkey), quorum: 2 }));
      const verify = await runCliIn(work, ['verify-receipt', doc.receipt.file, '--policy', 'policy.json', '--json']);
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      const report = JSON.parse(verify.stdout);
      expect(report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
      expect(report.checks.map((c: { name: string }) => c.name)).toContain("cosigned by at least 2 of the policy's 2 witness(es)");
      expect(readFileSync(doc.receipt.tlogProofFile, 'utf8').startsWith('c2sp.org/tlog-proof@v1\nextra ')).toBe(true);

      // A policy that requires no witness: refused unless asked for by name, and never called cosigned.
      // Before: accepted, "cosigned by at least 0 of the policy's 0 witness(es)" and "VERIFIED OFFLINE: ... its witnesses cosigned".
      for (const unwitnessed of [{ log: logVkey }, { log: logVkey, witnesses: witnesses.map((w) => w.vkey), quorum: 0 }]) {
        writeFileSync(join(work, 'none.json'), JSON.stringify(unwitnessed));
        const refused = await runCliIn(work, ['verify-receipt', doc.receipt.file, '--policy', 'none.json']);
        expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--allow-no-witnesses')]);
        const allowed = await runCliIn(work, ['verify-receipt', doc.receipt.file, '--policy', 'none.json', '--allow-no-witnesses']);
        expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
        expect(allowed.stdout).toContain('PASS  no witness required by the policy (quorum 0)');
        expect(allowed.stdout).toContain('VERIFIED OFFLINE, UNWITNESSED');
        expect(allowed.stdout.toLowerCase()).not.toContain('cosigned');
      }
    },
    PAID_TEST_MS,
  );
});
