/**
 * The background traffic of a localnet a test starts in its own process: vitest's global setup
 * (test/helpers/build-setup.ts) names the run's traffic in LOCALNET_TXS_PER_SLOT, which a spawned
 * service reads as its option of that name; the localnets started in-process take it from here.
 * Outside a test run (benchmarks) it is unset: the producer's default traffic.
 */
export function testTraffic(): { readonly txsPerSlot?: number } {
  const most = process.env.LOCALNET_TXS_PER_SLOT;
  return most ? { txsPerSlot: Number(most) } : {};
}
