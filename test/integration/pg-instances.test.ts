/**
 * Three real service instances (three processes, three ports) on one PostgreSQL database and one
 * localnet, as a deployment behind a load balancer: the same payment sent to all three at once is
 * one 200 and one charge; two different payments under one payment-identifier on two instances
 * are one charge and one 409; paid load spread over the three makes one gap-free chain whose
 * root, proofs and consistency proofs are the same on every instance; kill -9 of one instance
 * under load loses no acknowledged entry; the database taken away under load (every session
 * terminated, new ones refused, as in a restart) answers paid calls 503 while it is away, never
 * a 200 without its entry, and they work again once it is back.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { startInstanceGroup, type InstanceGroup } from '../helpers/instance-group.ts';
import { chainProblem, sha256Hex, specMerkleRoot, specProofRoot, type ServedEntry } from '../helpers/ledger-client.ts';
import { officialSvmClient, officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import type { ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

const PRICE_PATH = '/v1/epoch';
let group: InstanceGroup;
let admin: PgClient;
/** Every 200 any test received: its receipt must be in the ledger at the end. */
const acks: { ledgerIndex: number; receiptSha256: string }[] = [];

const target = () => ({ rpcUrl: group.net.urls.rpc, stablecoinMint: group.net.stablecoinMint });
const balance = (p: TestPayer) => tokenBalance(group.net.urls.rpc, p.signer.address, group.net.stablecoinMint);
const paid = (url: string, header: string) => fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });

function noteAck(res: Response): void {
  const header = res.headers.get('x-service-receipt');
  if (!header) throw new Error('a paid 200 without its receipt');
  const { signature: _s, ...unsigned } = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  acks.push({ ledgerIndex: unsigned.ledgerIndex, receiptSha256: sha256Hex(JSON.stringify(unsigned)) });
}

/** A payment header made by the official client for `url`, not sent; with `id` under the payment-identifier extension. */
async function paymentHeader(url: string, p: TestPayer, id?: string): Promise<string> {
  const required = decodePaymentRequiredHeader((await fetch(url)).headers.get('payment-required')!);
  if (id) required.extensions = { ...required.extensions, 'payment-identifier': { info: { required: false, id } } };
  return Buffer.from(JSON.stringify(await officialSvmClient(p, target()).createPaymentPayload(required))).toString('base64');
}

/** Pays from `workers` loops, round-robin over `services`, until `stop()`; tells `record` every status (0: no answer). */
async function load(
  services: () => readonly ServiceProcess[],
  workers: number,
  stop: () => boolean,
  record: (status: number) => void = () => undefined,
): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const pay = officialSvmFetch(await fundedPayer(group.net.urls.rpc, 50_000_000), target());
      for (let i = 0; !stop(); i++) {
        const all = services();
        const s = all[(i + w) % all.length]!;
        const res = await pay(`${s.url}${PRICE_PATH}?rate=${['both', 'primary', 'alt'][i % 3]}`).catch(() => null);
        if (res?.status === 200) noteAck(res);
        record(res?.status ?? 0);
        await res?.arrayBuffer().catch(() => undefined);
        // Refusals come back at once: do not spin on them.
        if (res?.status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
}

/** Waits until every running instance serves the same tree of at least `size` entries; returns it. */
async function converged(services: readonly ServiceProcess[], size: number): Promise<{ treeSize: number; merkleRootSha256: string; entries: ServedEntry[] }> {
  let last: unknown[] = [];
  const agreeing = async () => {
    const logs = await Promise.all(services.map((s) => readJson(fetch(`${s.url}/trust/log?limit=1000`))));
    last = logs.map((l) => `${l.treeSize}/${l.merkleRootSha256}`);
    const same = logs.every((l) => l.treeSize === logs[0].treeSize && l.merkleRootSha256 === logs[0].merkleRootSha256);
    return same && logs[0].treeSize >= size && logs[0];
  };
  // Never returns a tree the instances disagree on: a time-out says what each one served.
  return vi.waitUntil(agreeing, { timeout: 20_000, interval: 100 }).catch((err: unknown) => {
    throw err instanceof Error && !/Timed out/.test(err.message) ? err : new Error(`the instances did not converge on ${size} entries: ${last.join(', ')}`);
  });
}

beforeAll(async () => {
  group = await startInstanceGroup('pg-instances', 3, undefined, { seed: COMMON_TEST_SEED });
  const u = new URL(group.db.url);
  u.pathname = '/postgres';
  admin = createPgClient({ url: u.toString(), maxConnections: 1 });
}, 300_000);
afterAll(async () => {
  await admin?.close();
  await group?.close();
});

describe('three instances, one database', () => {
  it('the same payment sent to all three at once: exactly one 200 and one charge', async () => {
    const payer = await fundedPayer(group.net.urls.rpc, 10_000_000);
    const header = await paymentHeader(`${group.services[0]!.url}${PRICE_PATH}`, payer);
    const before = await balance(payer);
    const answers = await Promise.all(group.services.map((s) => paid(`${s.url}${PRICE_PATH}`, header)));
    const oks = answers.filter((r) => r.status === 200);
    expect(oks).toHaveLength(1);
    noteAck(oks[0]!);
    for (const r of answers.filter((a) => a.status !== 200)) expect(r.status).toBe(402);
    expect(before - (await balance(payer))).toBe(1000n);
  });

  it('two different payments under one payment-identifier on two instances: one charge, one 409', async () => {
    const [p1, p2] = [await fundedPayer(group.net.urls.rpc, 10_000_000), await fundedPayer(group.net.urls.rpc, 10_000_000)];
    const id = `pg-instances-${randomBytes(8).toString('hex')}`;
    const url = (i: number) => `${group.services[i]!.url}${PRICE_PATH}`;
    const headers = [await paymentHeader(url(0), p1, id), await paymentHeader(url(1), p2, id)];
    const before = [await balance(p1), await balance(p2)];
    const answers = await Promise.all([paid(url(0), headers[0]!), paid(url(1), headers[1]!)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    noteAck(answers.find((r) => r.status === 200)!);
    const charged = before[0]! - (await balance(p1)) + (before[1]! - (await balance(p2)));
    expect(charged).toBe(1000n);
  });
});

/** Every acknowledged receipt is the entry at its index in `entries`, and proves inclusion on `s`. */
async function expectAcked(s: ServiceProcess, tree: { treeSize: number; merkleRootSha256: string; entries: ServedEntry[] }): Promise<void> {
  const byIndex = new Map(tree.entries.map((e) => [e.index, e]));
  for (const ack of acks) expect(byIndex.get(ack.ledgerIndex)?.receiptSha256).toBe(ack.receiptSha256);
  const last = acks.at(-1)!;
  const proof = await readJson(fetch(`${s.url}/trust/proof?index=${last.ledgerIndex}&treeSize=${tree.treeSize}`));
  expect(specProofRoot(proof.leaf, proof.proof)).toBe(tree.merkleRootSha256);
}

describe('one ledger under load', () => {
  it('load spread over three: one gap-free chain, the same root, proofs and consistency proofs everywhere', async () => {
    const statuses: number[] = [];
    await load(
      () => group.services,
      6,
      () => statuses.length >= 60,
      (x) => statuses.push(x),
    );
    expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(40);
    const tree = await converged(group.services, acks.length);
    expect(tree.entries).toHaveLength(tree.treeSize);
    expect(chainProblem(tree.entries)).toBeNull();
    expect(specMerkleRoot(tree.entries.map((e) => e.entrySha256))).toBe(tree.merkleRootSha256);
    await expectAcked(group.services[2]!, tree);
    const proofs = await Promise.all(group.services.map((s) => readJson(fetch(`${s.url}/trust/proof?index=3&treeSize=${tree.treeSize}`))));
    expect(proofs[1]).toEqual(proofs[0]);
    expect(proofs[2]).toEqual(proofs[0]);
    const consistency = await Promise.all(group.services.map((s) => readJson(fetch(`${s.url}/trust/consistency?from=5&to=${tree.treeSize}`))));
    expect(consistency[1]).toEqual(consistency[0]);
    const checkpoints = await Promise.all(group.services.map((s) => readJson(fetch(`${s.url}/trust/checkpoint`))));
    expect(new Set(checkpoints.map((c) => c.signedBy ?? c.publicKey)).size).toBe(1);
  }, 90_000);

  it('kill -9 of one instance under load loses no acknowledged entry', async () => {
    const victim = group.services[1]!;
    let killed = false;
    const ackedBefore = acks.length;
    let n = 0;
    await load(
      () => (killed ? [group.services[0]!, group.services[2]!] : group.services),
      6,
      () => {
        if (!killed && acks.length >= ackedBefore + 8) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
        return killed && n++ >= 30;
      },
    );
    expect(await victim.exited).toMatchObject({ signal: 'SIGKILL' });
    const survivors = [group.services[0]!, group.services[2]!];
    const tree = await converged(survivors, acks.length);
    expect(chainProblem(tree.entries)).toBeNull();
    expect(specMerkleRoot(tree.entries.map((e) => e.entrySha256))).toBe(tree.merkleRootSha256);
    await expectAcked(survivors[1]!, tree);
    // Started again, it rebuilds the same view from the table.
    const again = await group.start(1);
    expect((await converged([again, ...survivors], tree.treeSize)).merkleRootSha256).toBe(tree.merkleRootSha256);
  }, 90_000);

  // A call already settled when the database goes rightly waits for its entry (the writer retries
  // for a restart's length), so the load's own workers may all be waiting; new payments, sent by a
  // probe of its own, are what must be refused at once.
  it('the database away under load: 503 while it is away, never a 200 without its entry; paid calls resume after', async () => {
    const name = group.db.name;
    const away = async () => {
      await admin.query(`alter database "${name}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    };
    type Phase = 'before' | 'away' | 'back';
    let phase = 'before' as Phase;
    const seen: Record<Phase, number[]> = { before: [], away: [], back: [] };
    const backOks = () => seen.back.filter((x) => x === 200).length;
    const run = load(
      () => group.services,
      6,
      () => phase === 'back' && backOks() >= 6,
      (x) => seen[phase].push(x),
    );
    await vi.waitUntil(() => seen.before.filter((x) => x === 200).length >= 6, { timeout: 60_000, interval: 100 });
    phase = 'away';
    await away();
    const probe = officialSvmFetch(await fundedPayer(group.net.urls.rpc, 10_000_000), target());
    const probed: number[] = [];
    for (let i = 0; probed.filter((x) => x === 503).length < group.services.length; i++) {
      const res = await probe(`${group.services[i % group.services.length]!.url}${PRICE_PATH}`);
      expect(res.status).not.toBe(200);
      probed.push(res.status);
      await res.arrayBuffer();
    }
    await admin.query(`alter database "${name}" allow_connections true`);
    phase = 'back';
    await run;
    expect(probed.every((x) => x === 503)).toBe(true);
    expect(backOks()).toBeGreaterThanOrEqual(6);
    const tree = await converged(group.services, acks.length);
    expect(chainProblem(tree.entries)).toBeNull();
    await expectAcked(group.services[0]!, tree);
  }, 90_000);
});
