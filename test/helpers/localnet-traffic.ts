/**
 * How much background traffic a test's localnet runs. The block producer's traffic is most of an
 * idle service's CPU (in-process, load 14: 0.16 of a core with the localnet's default traffic, 0.015
 * without; the slots advance either way), paid for every second a file waits, so the test helpers
 * start their localnets without it (test-service.ts, instance-group.ts, and service-process.ts for
 * the services a test spawns), and a file that reads what the traffic produces asks for it here.
 * Imported by files that start no service in-process, so it imports nothing.
 */

/**
 * The shape of a test's localnet: 64 slots an epoch unless `slotsPerEpoch` says; no background
 * traffic unless `txsPerSlot` says (FULL_TRAFFIC, LIGHT_TRAFFIC); the producer's pool launches
 * every few slots unless `launchEverySlots` says (0: never; they run with or without traffic).
 */
export interface TestLocalnetShape {
  readonly slotsPerEpoch?: number;
  readonly txsPerSlot?: number;
  readonly launchEverySlots?: number;
}

/** The localnet's own default traffic, 5 to 20 transactions a slot: for files that check what it produces. */
export const FULL_TRAFFIC = { txsPerSlot: 20 } as const satisfies TestLocalnetShape;
/**
 * 1 to 4 transactions a slot, about one Jito tip a slot: for files that only need the timing
 * answers (/v1/tipfloor, /v1/priority-fee) to exist, at about a fifth of the producer's CPU.
 */
export const LIGHT_TRAFFIC = { txsPerSlot: 4 } as const satisfies TestLocalnetShape;
