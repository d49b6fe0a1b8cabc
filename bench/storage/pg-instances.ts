/**
 * Paid calls per second with 1, 2 and 3 service instances (real processes, each on its own port)
 * on one PostgreSQL database (replay guard, settlements, paid answers and the ledger shared) and
 * one localnet, in the same run: the same paying clients (the official x402 client, a fresh
 * exact-SVM payment per call) spread round-robin over the first N instances. Ratios are against
 * one instance. On a 2-core machine the service processes, the localnet, PostgreSQL and the
 * clients' signing share the same two cores: the ceiling is the machine, not the design.
 *
 *   npm run bench -- pg-instances [--seconds 10]
 */
import { cpus, loadavg } from 'node:os';
import { officialSvmFetch } from '../../test/helpers/official-svm-client.ts';
import { startInstanceGroup } from '../../test/helpers/instance-group.ts';
import { fundedPayer } from '../../test/helpers/svm-payer.ts';

/** Paying clients in flight at every instance count. */
const CLIENTS = 12;
const DEFAULT_SECONDS = 10;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Paid calls answered 200 per second, with `clients` loops over `urls` for `seconds`. */
async function paidRate(urls: readonly string[], pays: readonly (typeof fetch)[], seconds: number): Promise<{ paidPerSecond: number; notOk: number }> {
  let ok = 0;
  let other = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    pays.map(async (pay, c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const res = await pay(`${urls[(c + i) % urls.length]}/v1/epoch?rate=${['both', 'primary', 'alt'][i % 3]}`);
        await res.arrayBuffer();
        if (res.status === 200) ok += 1;
        else other += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { paidPerSecond: round(ok / elapsed, 2), notOk: other };
}

/** Starts three instances, then measures 1, 2 and 3 of them under the same clients. */
export async function benchPgInstances(options: { readonly seconds?: number } = {}): Promise<Record<string, unknown>> {
  const seconds = options.seconds ?? DEFAULT_SECONDS;
  const group = await startInstanceGroup('bench-pg-instances', 3);
  try {
    const target = { rpcUrl: group.net.urls.rpc, stablecoinMint: group.net.stablecoinMint };
    const pays = await Promise.all(Array.from({ length: CLIENTS }, async () => officialSvmFetch(await fundedPayer(target.rpcUrl, 500_000_000), target)));
    const urls = group.services.map((s) => s.url);
    // Warm-up: caches, pool workers and connections of every instance.
    await paidRate(urls, pays, 2);
    const rows = [];
    for (const n of [1, 2, 3]) {
      const r = await paidRate(urls.slice(0, n), pays, seconds);
      rows.push({ instances: n, ...r });
      console.error(JSON.stringify(rows.at(-1)));
    }
    const base = rows[0]!.paidPerSecond;
    return {
      name: 'pg-instances',
      seconds,
      clients: CLIENTS,
      cores: cpus().length,
      loadAverage: loadavg().map((x) => round(x, 2)),
      rows: rows.map((r) => ({ ...r, vsOneInstance: round(r.paidPerSecond / base, 2) })),
    };
  } finally {
    await group.close();
  }
}
