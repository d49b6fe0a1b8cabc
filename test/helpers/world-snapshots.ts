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

/**
 * The world seed of most test localnets, whose world the global setup builds once: a start on it
 * plays that world back; a start on a seed of its own pays a world build (about 1.5 s of CPU) the
 * first time in a run.
 */
export const COMMON_TEST_SEED = 'test-1';
