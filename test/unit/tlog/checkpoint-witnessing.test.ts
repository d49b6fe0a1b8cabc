/**
 * The log's side of witnessing against witnesses of our own listening on port 0: a witness that
 * knows a larger size than the service (a restart of the service) answers 409 and the submission
 * is rebuilt from its size; a witness that is down or answers a cosignature that does not verify
 * shows its error and counts for nothing; a checkpoint is served for proofs only once the quorum
 * cosigned it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckpointWitnessing, type WitnessEndpoint } from '../../../src/tlog/checkpoint-witnessing.ts';
import { decodeCosignerKey, verifiedCosignatures } from '../../../src/tlog/cosignature.ts';
import { toHex } from '../../../src/ledger/merkle-hash.ts';
import { parseNote } from '../../../src/tlog/signed-note.ts';
import { addCheckpointBody } from '../../../src/tlog/witness-client.ts';
import type { RunningWitness } from '../../../src/witness/witness-program.ts';
import { createTestLog, type TestLog } from '../../helpers/tlog-fixture.ts';
import { startTestWitnesses } from '../../helpers/witnessed-service.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function witnessesOf(log: TestLog, count: number): Promise<RunningWitness[]> {
  const dir = mkdtempSync(join(tmpdir(), 'witnessing-'));
  const ws = await startTestWitnesses(dir, count, log.vkey);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => Promise.all(ws.map((w) => w.close())).then(() => undefined));
  return ws;
}

function endpoint(w: { url: string; vkey: string }): WitnessEndpoint {
  const key = decodeCosignerKey(w.vkey)!;
  return {
    url: w.url,
    name: key.name,
    label: new URL(w.url).origin,
    acceptCosignatures: async (lines, note) => {
      const parsed = parseNote(note);
      return parsed.ok ? verifiedCosignatures(parsed.value.text, lines, [key]).map((c) => c.line) : [];
    },
  };
}

function witnessingOf(log: TestLog, endpoints: WitnessEndpoint[], quorum: number) {
  const ledger = {
    head: () => ({ treeSize: log.size(), merkleRootRfc6962: toHex(log.root()) }),
    consistency: (from: number, to?: number) => ({ ok: true as const, value: { proof: log.consistency(from, to).map(toHex) } }),
    onAppend: () => () => undefined,
  };
  const signHead = async () => ({ size: log.size(), note: await log.checkpoint() });
  const w = createCheckpointWitnessing({ witnesses: endpoints, quorum, ledger: ledger as never, signHead });
  cleanup.push(() => w.close());
  return w;
}

describe('checkpoint witnessing', () => {
  it('rebuilds the submission from the size a witness reports in its 409, then serves the cosigned checkpoint', async () => {
    const log = createTestLog();
    log.append('a', 'b', 'c');
    const [w1, w2] = await witnessesOf(log, 2);
    // Before this start the witnesses cosigned size 3 (a previous run of the service).
    for (const w of [w1!, w2!])
      expect(
        (await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body: addCheckpointBody({ oldSize: 0, proof: [], note: await log.checkpoint() }) })).status,
      ).toBe(200);
    log.append('d', 'e');
    const witnessing = witnessingOf(log, [endpoint(w1!), endpoint(w2!)], 2);
    witnessing.start();
    await witnessing.idle();
    expect(witnessing.status()).toMatchObject({ quorum: 2, cosignedSize: 5 });
    expect(witnessing.status().witnesses.map((w) => [w.cosignedSize, w.error])).toEqual([
      [5, null],
      [5, null],
    ]);
    expect(witnessing.covering(4)?.cosignatures.size).toBe(2);
    expect(witnessing.covering(5)).toBeNull();
    expect(witnessing.servedNote()?.match(/^\u2014 witness\.test\//gm)).toHaveLength(2);
  });

  it('shows a witness that is down or answers a cosignature that does not verify, and serves no proof below the quorum', async () => {
    const log = createTestLog();
    log.append('a');
    const [good] = await witnessesOf(log, 1);
    const liar = createServer((_req, res) => res.end(`\u2014 witness.test/w9 ${Buffer.alloc(76, 7).toString('base64')}\n`));
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise<void>((r) => liar.close(() => r())));
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', () => r()));
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    await new Promise<void>((r) => down.close(() => r()));
    const [, impostor] = await witnessesOf(log, 2);
    const liarEndpoint = { ...endpoint({ url: `http://127.0.0.1:${(liar.address() as AddressInfo).port}`, vkey: impostor!.vkey }) };
    const witnessing = witnessingOf(log, [endpoint(good!), liarEndpoint, endpoint({ url: downUrl, vkey: impostor!.vkey })], 2);
    witnessing.start();
    await witnessing.idle();
    expect(witnessing.status().witnesses.map((w) => [w.cosignedSize, w.error])).toEqual([
      [1, null],
      [null, 'no cosignature by its key verified'],
      [null, 'unreachable'],
    ]);
    expect(witnessing.covering(0)).toBeNull();
    expect(witnessing.status().cosignedSize).toBeNull();
    // Below the quorum /checkpoint still serves the newest checkpoint, with the one cosignature it got.
    expect(witnessing.servedNote()?.match(/^\u2014 /gm)).toHaveLength(2);
  });

  it('stops reading a witness answer past 64 KiB', async () => {
    const log = createTestLog();
    log.append('a');
    const [w] = await witnessesOf(log, 1);
    const flood = createServer((_req, res) => {
      res.write(Buffer.alloc(1024 * 1024, 0x41));
      res.end();
    });
    await new Promise<void>((r) => flood.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise<void>((r) => flood.close(() => r())));
    const witnessing = witnessingOf(log, [endpoint({ url: `http://127.0.0.1:${(flood.address() as AddressInfo).port}`, vkey: w!.vkey })], 1);
    witnessing.start();
    await witnessing.idle();
    expect(witnessing.status().witnesses[0]?.error).toBe('HTTP 200 with an unreadable body');
  });
});
