/**
 * The four Geyser-fed timing endpoints paid for over HTTP with the official x402 client against the
 * real service and its embedded localnet: 200, settlement header, the contract's response shapes,
 * and answers that come from the stream and state their freshness.
 */
import { describe, expect, it, vi } from 'vitest';
import { LIGHT_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { expectSettledAnswer } from '../helpers/check-response.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';
import { readJson } from '../helpers/read-json.ts';

/** Confirmed slots the fee and tip windows should hold before the answers are judged. */
const WARM_SLOTS = 3;
const paid = usePaidService({ localnet: LIGHT_TRAFFIC });
const answer = async (pathAndQuery: string) => expectSettledAnswer(await paid.pay(pathAndQuery));

describe('paid timing endpoints', () => {
  it('/v1/priority-fee and /v1/tipfloor answer from the stream with freshness', async () => {
    // The windows fill from slots confirmed after the service subscribed; /health shows them.
    await vi.waitUntil(
      async () => {
        const { timing } = await readJson(fetch(`${paid.url}/health`));
        return timing.geyser.live && timing.caches.feeSlots >= WARM_SLOTS && timing.caches.tipSlots >= WARM_SLOTS && timing.caches.tips > 0;
      },
      { timeout: 30_000, interval: 100 },
    );
    const fee = await answer(`/v1/priority-fee?accounts=${paid.localnet.world.pools[0]!.vaultA}`);
    expect(fee.source).toBe('geyser');
    expect(fee.freshness.stream).toBe('live');
    expect(fee.observed.accountsRequested).toBe(1);
    expect(fee.note).toMatch(/not a prediction/);
    const tip = await answer('/v1/tipfloor?fresh=true');
    expect(tip.source).toBe('geyser');
    expect(tip.unit).toBe('lamports');
    expect(tip.p99).toBeGreaterThanOrEqual(tip.p50);
  }, 60_000);

  it('/v1/epoch and /v1/sgp-checkpoint answer from the stream', async () => {
    const epoch = await answer('/v1/epoch?rate=both');
    expect(epoch.source).toBe('geyser');
    expect(epoch.slotsInEpoch).toBe(64);
    const sgp = await answer('/v1/sgp-checkpoint?n=5');
    expect(sgp.source).toBe('geyser');
    expect(sgp.series.recent.length).toBeLessThanOrEqual(5);
    expect(sgp.latest.slotsInEpoch).toBe(64);
  }, 60_000);
});
