/**
 * Fresh keys rotated against early answers (docs/security.md, "Fresh keys, round after round"): the
 * real service paid by the official x402 SVM client, behind an RPC that holds the attackers'
 * transactions (test/helpers/held-send-rpc.ts) until each attacker has drained its token account.
 * Round after round new keys, each funded for its calls, fire at once: each key gets at most one
 * early answer, the losses (answers plus our fee payer's fees for the failed transactions) stay
 * within the new payers' share of the loss budget and so within the budget, and a payer with
 * confirmed history keeps every call early while the attack goes on.
 */
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredEarly, heldRound } from '../helpers/early-attack.ts';
import type { HeldSendRpc } from '../helpers/held-send-rpc.ts';
import { type EarlyService, startEarlyService } from '../helpers/early-service.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readUntil } from '../helpers/read-until.ts';
import { fundedPayer, type TestPayer } from '../helpers/svm-payer.ts';

const PRICE = 1_000;
/** The official client's transaction costs our fee payer 10,001 lamports: 5,001 units at the default $500 a SOL. */
const LOSS_EACH = PRICE + 5_001;
/** New payers may lose half of it: 6 failed answers (36,006); without that share, 13 before the budget stopped them. */
const LOSS_BUDGET = 80_000;
/** Nine keys: two rounds reach the new payers' share, the third is refused by it (without the share, 48,008 lost). */
const ROUNDS = 3;
const KEYS_PER_ROUND = 3;
/** One call that may be early, one that must not be. */
const CALLS_PER_KEY = 2;
/** The established payer's calls per round, at once: within what its history earned (5 in flight). */
const HONEST_BATCH = 5;

let early: EarlyService;
let localnet: Localnet;
let rpc: HeldSendRpc;
let sink: TestPayer;

beforeAll(async () => {
  early = await startEarlyService('early-rotation', ['--svm-early-loss-budget', String(LOSS_BUDGET)]);
  ({ localnet, rpc, sink } = early);
}, 120_000);

afterAll(() => early?.close());

const health = () => early.health();
const chain = () => early.chain;
const url = () => early.url;

describe('fresh keys rotated round after round', () => {
  it('one early answer per key, losses within the budget, and the established payer keeps every call early', async () => {
    // The established payer: ten calls paid and confirmed (10,000), which earn it 5,000 in flight.
    // Sent at once: what they earn is their confirmed value (early-bounds.ts, trustOf), not their pace.
    const honest = await fundedPayer(localnet.urls.rpc, 200 * PRICE);
    const pay = officialSvmFetch(honest, chain());
    const warm = await Promise.all(Array.from({ length: 10 }, () => pay(url())));
    expect(warm.map((r) => r.status)).toEqual(Array<number>(10).fill(200));
    await readUntil(health, (h) => h.exposureUnits === 0);
    const before = await health();

    const earlyPerKey: number[] = [];
    const honestEarly: boolean[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const keys = await Promise.all(Array.from({ length: KEYS_PER_ROUND }, () => fundedPayer(localnet.urls.rpc, CALLS_PER_KEY * PRICE)));
      const attacking = heldRound(chain(), rpc, keys, url(), CALLS_PER_KEY, sink.signer.address);
      // While the attackers' transactions are held, the honest payer's calls land as usual.
      const batch = await Promise.all(Array.from({ length: HONEST_BATCH }, () => pay(url())));
      for (const r of batch) {
        expect(r.status).toBe(200);
        honestEarly.push(answeredEarly(r));
      }
      for (const answers of (await attacking).values()) earlyPerKey.push(answers.filter(answeredEarly).length);
      // Every failure recorded and every honest answer confirmed before the next round.
      await readUntil(health, (h) => h.exposureUnits === 0);
    }
    const after = await health();
    const failed = after.failed - before.failed;
    expect(Math.max(...earlyPerKey)).toBe(1);
    expect(earlyPerKey.reduce((a, b) => a + b, 0)).toBe(failed);
    expect(after.lossUnits).toBe(failed * LOSS_EACH);
    expect(after.lossUnits).toBeLessThanOrEqual(LOSS_BUDGET / 2);
    expect(after.newPayersLossUnits).toBe(after.lossUnits);
    expect(after.refused.new_payers).toBeGreaterThan(0);
    expect(after.budgetReached).toBe(false);
    expect(honestEarly).toEqual(Array(ROUNDS * HONEST_BATCH).fill(true));
  }, 300_000);
});
