/**
 * Issue 5 acceptance: kill -9 of the real server under paid load loses no acknowledged entry.
 *
 * The service runs as a child process (the build, `node dist/server/main.js`, embedded mode). Several
 * official x402 clients (`@x402/fetch` + `@x402/svm`) pay /v1/epoch concurrently; every 200 that
 * reaches us is recorded (its receipt, hence ledgerIndex and SHA-256 of the canonical receipt).
 * While other paid calls are in flight the process is SIGKILLed, then started again on the same
 * data dir (its localnet is a fresh chain; the ledger on disk is what carries over). The ledger
 * served after the restart is checked the way a client would, with node:crypto and tweetnacl
 * only: the chain from genesis, the Merkle root, every acknowledged receipt's entry and its
 * inclusion proof. A kill -9 does not tear a write the kernel accepted, so the WAL is also
 * given the unterminated partial line a crash mid-write (power loss) leaves, and the restart must
 * cut it and say so.
 */
import bs58 from 'bs58';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyConsistency } from '../../src/ledger/merkle-verify.ts';
import { chainProblem, sha256Hex, specMerkleRoot, specProofRoot, type ServedEntry } from '../helpers/ledger-client.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { killService, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer } from '../helpers/svm-payer.ts';

/** Concurrent paying clients. */
const WORKERS = 6;
/** The kill comes right when this many 200s have reached the clients (others are in flight). */
const ACKS_BEFORE_KILL = 12;
/** Paid calls answered other than 200 before the kill that the test tolerates. */
const MAX_NON_ACKS = 20;
const PARTIAL_LINE = '{"index":999999,"time":"2026-01-01T00:00:00.000Z","kind":"payment","endp';

interface Ack {
  readonly header: string;
  readonly body: Uint8Array;
  readonly receipt: { ledgerIndex: number; ledgerChainHead: string; responseSha256: string; signature: { signatureBase58: string; signedBy: string } };
  /** SHA-256 of the canonical receipt: what the ledger entry must carry. */
  readonly receiptSha256: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'ledger-crash-'));
const running: ServiceProcess[] = [];

afterAll(async () => {
  for (const p of running) await killService(p);
  rmSync(dataDir, { recursive: true, force: true });
});

const payers: string[] = [];
const PAYMENT_ENTRY_FIELDS = ['index', 'time', 'kind', 'endpoint', 'priceUsdcUnits', 'network', 'receiptSha256', 'prevHash', 'entrySha256'];
let second: ServiceProcess;

async function payingFetch(svc: ServiceProcess): Promise<typeof fetch> {
  const payer = await fundedPayer(svc.rpcUrl, 50_000_000);
  payers.push(payer.signer.address);
  return officialSvmFetch(payer, { rpcUrl: svc.rpcUrl, stablecoinMint: svc.stablecoinMint });
}

async function readAck(res: Response): Promise<Ack> {
  const body = new Uint8Array(await res.arrayBuffer());
  const header = res.headers.get('x-service-receipt')!;
  const receipt = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  const { signature: _signature, ...unsigned } = receipt;
  return { header, body, receipt, receiptSha256: sha256Hex(JSON.stringify(unsigned)) };
}

/** Pays in WORKERS loops; SIGKILLs the service as the ACKS_BEFORE_KILL-th 200 arrives (once a checkpoint was taken). */
async function payUntilKilled(
  svc: ServiceProcess,
  payFetch: typeof fetch,
): Promise<{ acks: Ack[]; inFlightAtKill: number; refused: number; checkpoint: Promise<any> }> {
  const acks: Ack[] = [];
  let checkpoint: Promise<unknown> = Promise.resolve(null);
  let checkpointTaken = false;
  let killed = false;
  let inFlight = 0;
  let inFlightAtKill = 0;
  let refused = 0;
  let nonAcks = 0;
  let failed = false;
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; !killed && !failed; i++) {
      inFlight += 1;
      try {
        const res = await payFetch(`${svc.url}/v1/epoch?rate=${['both', 'primary', 'alt'][(i + w) % 3]}`);
        if (res.status !== 200) {
          // Only a 200 is an acknowledgement. A loaded machine may answer a paid call 402
          // (settlement not confirmed in time): tolerated, but not without bound.
          const text = await res.text().catch(() => '');
          if (!killed && ++nonAcks > MAX_NON_ACKS) throw new Error(`${nonAcks} paid calls answered other than 200; last ${res.status}: ${text}`);
          continue;
        }
        const ack = await readAck(res);
        if (killed) continue; // the kill raced the body; the 200 counts only once fully received
        acks.push(ack);
        // A signed tree head taken under load, before the crash: the recovered tree must extend it.
        if (acks.length === ACKS_BEFORE_KILL / 2)
          checkpoint = readJson(fetch(`${svc.url}/trust/checkpoint`)).then((c) => {
            checkpointTaken = true;
            return c;
          });
        if (acks.length >= ACKS_BEFORE_KILL && checkpointTaken) {
          killed = true;
          inFlightAtKill = inFlight - 1;
          svc.child.kill('SIGKILL');
        }
      } catch (err) {
        if (!killed) {
          failed = true; // stops the other workers too
          throw err;
        }
        refused += 1;
      } finally {
        inFlight -= 1;
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return { acks, inFlightAtKill, refused, checkpoint };
}

/**
 * Every call here waits for its confirmation: what is under test is the WAL across a kill -9. Early
 * answers in flight at a kill are followed after the restart and may append their failure events
 * while this test reads the ledger (test/adversarial/svm-early-answers-crash.test.ts covers that).
 */
const CONFIRMED_PATH = ['--svm-early-ceiling', '0'];

describe('kill -9 of the real server under paid load', () => {
  it('keeps every acknowledged entry: the chain verifies from genesis and every receipt proves inclusion', async () => {
    const first = await spawnService(dataDir, CONFIRMED_PATH);
    running.push(first);
    const { acks, inFlightAtKill, checkpoint: pending } = await payUntilKilled(first, await payingFetch(first));
    const before = await pending;
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(acks.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(new Set(acks.map((a) => a.receipt.ledgerIndex)).size).toBe(acks.length);

    // What a write interrupted by power loss leaves: an unterminated line at the end.
    const wal = join(dataDir, 'ledger', 'ledger.wal');
    const killedSize = statSync(wal).size;
    const killedTail = readFileSync(wal, 'utf8');
    appendFileSync(wal, PARTIAL_LINE);

    second = await spawnService(dataDir, CONFIRMED_PATH);
    running.push(second);
    // The torn tail is gone at start-up, reported: the journal's commits since its last checkpoint
    // are laid down again over it (commits the kill caught between the journal and the WAL too),
    // or, with none to lay down, the ledger cuts it at the end of the last complete line.
    const lastNewline = killedTail.endsWith('\n') ? killedSize : killedTail.lastIndexOf('\n') + 1;
    expect(second.stderr()).toMatch(/storage: put back \d+ commit\(s\) from the journal|ledger: cut a torn tail after a crash/);
    const recovered = readFileSync(wal, 'utf8');
    expect(recovered.length).toBeGreaterThanOrEqual(lastNewline);
    expect(recovered.startsWith(killedTail.slice(0, lastNewline))).toBe(true);
    expect(recovered).not.toContain(PARTIAL_LINE);
    expect(recovered.endsWith('\n')).toBe(true);

    const log = await readJson(fetch(`${second.url}/trust/log?limit=1000`));
    const ledger = await readJson(fetch(`${second.url}/ledger?limit=1000`));
    const entries = ledger.entries as ServedEntry[];
    expect(log.entries).toEqual(entries);
    expect(ledger.treeSize).toBe(entries.length);
    expect(entries.length).toBeLessThan(1000);
    expect(chainProblem(entries)).toBeNull();
    expect(ledger.chainHeadSha256).toBe(entries.at(-1)!.entrySha256);
    expect(log.merkleRootSha256).toBe(specMerkleRoot(entries.map((e) => e.entrySha256)));
    // docs/contract.md#ledger-entries: no query content, payer address or caller identity in any entry.
    for (const e of entries) expect(Object.keys(e)).toEqual(PAYMENT_ENTRY_FIELDS);
    for (const secret of [...payers, 'rate=', '127.0.0.1']) expect(JSON.stringify(entries)).not.toContain(secret);
    // The checkpoint signed before the crash is a prefix of the recovered tree (no rewrite, no fork).
    const { signature: cpSig, ...cpUnsigned } = before;
    expect(nacl.sign.detached.verify(Buffer.from(JSON.stringify(cpUnsigned), 'utf8'), bs58.decode(cpSig.signatureBase58), bs58.decode(cpSig.signedBy))).toBe(
      true,
    );
    expect(before.rootHash.spec).toBe(specMerkleRoot(entries.slice(0, before.treeSize).map((e) => e.entrySha256)));
    expect(before.chainHead).toBe(entries[before.treeSize - 1]!.entrySha256);
    const consistency = await readJson(fetch(`${second.url}/trust/consistency?from=${before.treeSize}&to=${entries.length}`));
    expect(consistency.fromRoot).toBe(before.rootHash.rfc6962);
    expect(verifyConsistency(consistency)).toEqual({ ok: true });
    const health = await readJson(fetch(`${second.url}/health`));
    expect(health.ledger).toMatchObject({
      entries: entries.length,
      chainHeadSha256: ledger.chainHeadSha256,
      merkleRootSha256: log.merkleRootSha256,
      writable: true,
    });

    const { publicKey } = await readJson(fetch(`${second.url}/trust/pubkey`));
    for (const ack of acks) {
      const r = ack.receipt;
      const entry = entries[r.ledgerIndex]!;
      expect(entry).toMatchObject({
        index: r.ledgerIndex,
        kind: 'payment',
        endpoint: '/v1/epoch',
        receiptSha256: ack.receiptSha256,
        prevHash: r.ledgerChainHead,
      });
      const { signature: _s, ...unsigned } = JSON.parse(Buffer.from(ack.header, 'base64').toString('utf8'));
      expect(
        nacl.sign.detached.verify(Buffer.from(JSON.stringify(unsigned), 'utf8'), bs58.decode(r.signature.signatureBase58), bs58.decode(r.signature.signedBy)),
      ).toBe(true);
      expect(r.signature.signedBy).toBe(publicKey);
      expect(sha256Hex(ack.body)).toBe(r.responseSha256);
      const proof = await readJson(fetch(`${second.url}/trust/proof?index=${r.ledgerIndex}`));
      expect(proof).toMatchObject({ index: r.ledgerIndex, leaf: entry.entrySha256, treeSize: entries.length, merkleRootSha256: log.merkleRootSha256 });
      expect(specProofRoot(proof.leaf, proof.proof)).toBe(log.merkleRootSha256);
    }
    const verdict = await readJson(
      fetch(`${second.url}/trust/verify`, {
        method: 'POST',
        body: JSON.stringify({ receipt: acks[0]!.header, body: Buffer.from(acks[0]!.body).toString('base64') }),
      }),
    );
    expect(verdict).toMatchObject({ valid: true, checks: { ledgerInclusion: { status: 'pass' }, responseSha256: { status: 'pass' } } });

    // The recovered ledger keeps growing on the old chain (the restarted localnet is a fresh chain).
    const res = await (await payingFetch(second))(`${second.url}/v1/epoch`);
    expect(res.status).toBe(200);
    const next = await readAck(res);
    expect(next.receipt).toMatchObject({ ledgerIndex: entries.length, ledgerChainHead: ledger.chainHeadSha256 });
    const after = await readJson(fetch(`${second.url}/ledger?limit=1000`));
    expect(chainProblem(after.entries)).toBeNull();
    expect(after.entries.at(-1)).toMatchObject({ index: entries.length, receiptSha256: next.receiptSha256 });
  }, 400_000);

  it('keeps the kill switch on across a SIGKILL, with its transitions as audited entries', async () => {
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const admin = (svc: ServiceProcess, action: string, body?: string) =>
      fetch(`${svc.adminUrl}/kill-switch/${action}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(body ? { body } : {}),
      });
    expect((await admin(second, 'activate', '{"reason":"crash test"}')).status).toBe(200);
    expect((await fetch(`${second.url}/v1/epoch`)).status).toBe(503);
    second.child.kill('SIGKILL');
    expect(await second.exited).toMatchObject({ signal: 'SIGKILL' });

    const third = await spawnService(dataDir, CONFIRMED_PATH);
    running.push(third);
    const health = await readJson(fetch(`${third.url}/health`));
    expect(health.killSwitch.active).toBe(true);
    expect((await fetch(`${third.url}/v1/epoch`)).status).toBe(503);
    const stopped = await readJson(fetch(`${third.url}/ledger?limit=1000`));
    expect(chainProblem(stopped.entries)).toBeNull();
    expect(Object.keys(stopped.entries.at(-1))).toEqual(['index', 'time', 'kind', 'event', 'reason', 'prevHash', 'entrySha256']);
    expect(stopped.entries.at(-1)).toMatchObject({ kind: 'audit', event: 'kill-switch.activated', reason: 'crash test' });
    expect(health.ledger).toMatchObject({ entries: stopped.entries.length, chainHeadSha256: stopped.chainHeadSha256 });

    expect((await admin(third, 'release')).status).toBe(200);
    expect((await fetch(`${third.url}/v1/epoch`)).status).toBe(402);
    const released = await readJson(fetch(`${third.url}/ledger?limit=1000`));
    expect(chainProblem(released.entries)).toBeNull();
    expect(released.entries.at(-1)).toMatchObject({ index: stopped.entries.length, kind: 'audit', event: 'kill-switch.released' });
  }, 300_000);

  it('refuses to start, naming the line, when an entry in the middle of the WAL was altered', async () => {
    await killService(running.at(-1));
    const wal = join(dataDir, 'ledger', 'ledger.wal');
    const lines = readFileSync(wal, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"priceUsdcUnits":1000', '"priceUsdcUnits":1001');
    writeFileSync(wal, lines.join('\n'));
    const refused = await spawnService(dataDir, CONFIRMED_PATH).then(
      (p) => {
        running.push(p);
        return new Error('the service started on a corrupt ledger');
      },
      (err: Error) => err,
    );
    expect(refused.message).toMatch(/exited before listening \(code 1/);
    expect(refused.message).toMatch(/ledger WAL corrupt at line 3 \(byte offset \d+\): entrySha256 is not the SHA-256 of the entry; refusing to start/);
  }, 300_000);
});
