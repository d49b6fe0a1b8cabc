/**
 * The Geyser-fed timing answers (/v1/tipfloor, /v1/priority-fee) need slots seen on the stream
 * after the service subscribed; before that they are a 502 `upstream_unavailable` (no charge). A
 * test that pays for them right after the start waits here, on the service's own /health.
 */
import { vi } from 'vitest';
import { readJson } from './read-json.ts';

/**
 * Resolves once the stream is live, the fee and tip windows hold `slots` confirmed slots and the
 * tip window holds a tip (with light traffic a few slots may have none).
 */
export async function waitForTimingWindows(url: string, slots = 3, timeoutMs = 60_000): Promise<void> {
  await vi.waitUntil(
    async () => {
      const { timing } = await readJson(fetch(`${url}/health`));
      return timing.geyser.live && timing.caches.feeSlots >= slots && timing.caches.tipSlots >= slots && timing.caches.tips > 0;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
