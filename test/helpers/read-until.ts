/**
 * Reads a value again and again until it passes a check, on vitest's own condition wait (so the
 * wait has a deadline and no guessed sleep): what an adversarial test needs to follow the
 * service's /health until settlements in flight have resolved.
 */
import { vi } from 'vitest';

/** The first value `read` gives that passes `check`; fails after `timeoutMs`. */
export async function readUntil<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 120_000, intervalMs = 50): Promise<T> {
  let last: { value: T } | null = null;
  await vi.waitUntil(
    async () => {
      const value = await read();
      last = { value };
      return check(value);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
  return (last as { value: T } | null)!.value;
}
