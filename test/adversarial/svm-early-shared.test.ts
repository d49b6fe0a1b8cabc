/**
 * The loss budget of early answers held by a deployment, not by one process (docs/security.md,
 * "Fresh keys, round after round"): two built instances on one PostgreSQL database, behind an RPC
 * that holds the attackers' transactions (test/helpers/held-send-rpc.ts) until each has drained its
 * token account. Losses taken on one instance count on the other; the loss that reaches the budget
 * is one ledger audit entry; once reached, neither instance answers early, and a restarted instance
 * still knows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIGHT_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { answeredEarly, heldRound } from '../helpers/early-attack.ts';
import { startHeldSendRpc, type HeldSendRpc } from '../helpers/held-send-rpc.ts';
import { type InstanceGroup, startInstanceGroup } from '../helpers/instance-group.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { readUntil } from '../helpers/read-until.ts';
import { killService, type ServiceProcess } from '../helpers/service-process.ts';
import { fundedPayer, type TestPayer } from '../helpers/svm-payer.ts';
import { waitForTimingWindows } from '../helpers/timing-warm.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

const PRICE = 1_000;
/** A failed early answer: its price and our fee payer's 10,001 lamports at the default $500 a SOL. */
const LOSS_EACH = PRICE + 5_001;
/** Reached once the day's losses leave less than the riskiest answer (5,000 + 20,000 lamports = 15,000): at 3 failures. */
const LOSS_BUDGET = 30_000;
let group: InstanceGroup;
let rpc: HeldSendRpc;
let sink: TestPayer;

beforeAll(async () => {
  group = await startInstanceGroup('early-shared', 2, undefined, {
    rpc: async (url) => {
      rpc = await startHeldSendRpc(url);
      return rpc.url;
    },
    extraArgs: ['--svm-early-loss-budget', String(LOSS_BUDGET)],
    // /v1/tipfloor is only the paid call here: it needs a Jito tip seen, which light traffic gives.
    ...LIGHT_TRAFFIC,
    seed: COMMON_TEST_SEED,
  });
  await Promise.all(group.services.map((s) => waitForTimingWindows(s.url)));
  sink = await fundedPayer(group.net.urls.rpc, 1);
}, 240_000);

afterAll(async () => {
  await group?.close();
  await rpc?.close();
});

const health = async (s: ServiceProcess) => (await readJson(fetch(`${s.url}/health`))).earlyAnswers;
const chain = () => ({ rpcUrl: group.net.urls.rpc, stablecoinMint: group.net.stablecoinMint });
const tipfloor = (s: ServiceProcess) => `${s.url}/v1/tipfloor`;

/**
 * A payer with two confirmed calls on `s` (one early answer at a time earned), sent at once: what
 * they earn is their confirmed value (early-bounds.ts, trustOf), not their pace.
 */
async function established(s: ServiceProcess): Promise<TestPayer> {
  const payer = await fundedPayer(group.net.urls.rpc, 10 * PRICE);
  const pay = officialSvmFetch(payer, chain());
  const warm = await Promise.all([pay(tipfloor(s)), pay(tipfloor(s))]);
  expect(warm.map((r) => r.status)).toEqual([200, 200]);
  return payer;
}

/** How many of the round's calls were answered early. */
const earlyIn = (answers: Map<string, Response[]>): number => [...answers.values()].flat().filter(answeredEarly).length;

describe('two instances on one database', () => {
  it('share one loss budget: losses on one count on the other, one audit entry, then no early answer on either, across a restart', async () => {
    const [a, b] = group.services as [ServiceProcess, ServiceProcess];
    const honest = await Promise.all([established(a), established(a)]);
    await readUntil(
      () => health(a),
      (h) => h.exposureUnits === 0,
    );

    // Fresh keys on b: their share of the budget (15,000) admits two failures' worth.
    const keys = await Promise.all(Array.from({ length: 3 }, () => fundedPayer(group.net.urls.rpc, PRICE)));
    expect(earlyIn(await heldRound(chain(), rpc, keys, tipfloor(b), 1, sink.signer.address))).toBe(2);
    await readUntil(
      () => health(a),
      (h) => h.lossUnits === 2 * LOSS_EACH && h.exposureUnits === 0,
    );

    // The established payers turn on a: both answered early (the budget still has room), both fail.
    expect(earlyIn(await heldRound(chain(), rpc, honest, tipfloor(a), 1, sink.signer.address))).toBe(2);
    for (const s of [a, b]) {
      const h = await readUntil(
        () => health(s),
        (x) => x.lossUnits === 4 * LOSS_EACH,
      );
      expect(h).toMatchObject({ budgetReached: true, scope: 'database' });
      expect(h.lossUnits).toBeLessThanOrEqual(LOSS_BUDGET);
    }
    const log = await readJson(fetch(`${b.url}/ledger?limit=1000`));
    expect(log.entries.filter((e: { event?: string }) => e.event === 'early-answers.loss-budget-reached')).toHaveLength(1);
    expect(`${a.stderr()}${b.stderr()}`).toMatch(/reached the loss budget/);

    // Reached: a payer with history waits for confirmation on either instance, and after a restart.
    const next = await established(b);
    const pay = officialSvmFetch(next, chain());
    expect(answeredEarly(await pay(tipfloor(b)))).toBe(false);
    await killService(a);
    const restarted = await group.start(0);
    await waitForTimingWindows(restarted.url);
    // Its first /health starts the read of the shared book; the next ones show it.
    await readUntil(
      () => health(restarted),
      (h) => h.budgetReached === true,
    );
    expect(answeredEarly(await pay(tipfloor(restarted)))).toBe(false);
    expect((await health(restarted)).refused.loss_budget).toBeGreaterThan(0);
  }, 300_000);
});
