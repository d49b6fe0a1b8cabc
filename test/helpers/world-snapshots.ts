/**
 * The run's world snapshots for a localnet a test starts in its own process: vitest's global setup
 * (test/helpers/build-setup.ts) builds the common seeds' worlds into a directory and names it in
 * LOCALNET_WORLD_DIR, which a spawned service reads as its option of that name; the localnets
 * started in-process take it from here. Outside a test run (benchmarks) there is none: the world
 * is built as always.
 */
export function worldSnapshots(): { readonly worldSnapshotDir?: string } {
  const dir = process.env.LOCALNET_WORLD_DIR;
  return dir ? { worldSnapshotDir: dir } : {};
}
