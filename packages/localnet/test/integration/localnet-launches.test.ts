/**
 * Pools launched while the localnet runs (src/traffic/pool-launches.ts): the block producer,
 * stepped by hand, sends one launch transaction every `launchEverySlots` slots; it lands on chain
 * (a new mint whose whole supply is in the pool's base vault, quote liquidity moved from a
 * trader), the RPC serves it, and the GeckoTerminal stand-in lists the pool first in `new_pools`;
 * a restart from the saved state lists the pools launched before it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMintAccount } from '../../src/encoding/token-accounts.ts';
import { startLocalnet, type Localnet } from '../../src/start-localnet.ts';
import { LAUNCH_SUPPLY_RAW } from '../../src/traffic/pool-launches.ts';
import { vaultBalance, type WorldPool } from '../../src/world/world-pools.ts';

let net: Localnet;
const EVERY = 3;
const OPTIONS = {
  host: '127.0.0.1',
  rpcPort: 0,
  geyserPort: 0,
  marketPort: 0,
  slotMs: 400,
  slotsPerEpoch: 64,
  seed: 'launches-1',
  produce: false,
  launchEverySlots: EVERY,
} as const;

beforeAll(async () => {
  net = await startLocalnet(OPTIONS);
}, 120_000);
afterAll(async () => {
  await net?.close();
});

const newPools = async (on = net) => (await (await fetch(`${on.urls.market}/api/v2/networks/solana/new_pools?include=base_token`)).json()) as any;

describe('pool launches', () => {
  it('a launch every N slots lands on chain and becomes the newest pool of the market stand-in', async () => {
    const seeded = net.world.pools.length;
    expect(net.producer.pools()).toHaveLength(seeded);
    for (let i = 0; i < EVERY - 1; i++) expect(net.producer.step().transactions.some((t) => t.kind === 'launch')).toBe(false);
    const slot = net.producer.step();
    const launch = slot.transactions.find((t) => t.kind === 'launch');
    expect(launch).toMatchObject({ landed: true, failed: false, pool: 'launch-0' });
    const pools = net.producer.pools();
    expect(pools).toHaveLength(seeded + 1);
    const pool = pools.at(-1)!;
    const mint = parseMintAccount(net.chain.getAccount(pool.mintA)!.data);
    expect(mint.ok && mint.state.supply).toBe(LAUNCH_SUPPLY_RAW);
    expect(vaultBalance(net.chain, pool.vaultA)).toBe(LAUNCH_SUPPLY_RAW);
    expect(vaultBalance(net.chain, pool.vaultB)).toBe(pool.initialReserveB);
    expect(pool.initialReserveB).toBeGreaterThan(0n);

    const list = await newPools();
    expect(list.data[0].attributes.address).toBe(pool.address);
    expect(list.data[0].relationships.base_token.data.id).toBe(`solana_${pool.mintA}`);
    // A launched token has no metadata: the stand-in gives no symbol, as GeckoTerminal would not.
    expect(list.included.find((t: any) => t.id === `solana_${pool.mintA}`).attributes.symbol).toBeNull();
    expect(Number(list.data[0].attributes.reserve_in_usd)).toBeGreaterThan(0);
  }, 60_000);

  it('the next launch comes N slots later, with keys of its own', async () => {
    const before = net.producer.pools().length;
    for (let i = 0; i < EVERY; i++) net.producer.step();
    const pools = net.producer.pools();
    expect(pools).toHaveLength(before + 1);
    expect(pools.at(-1)!.label).toBe('launch-1');
    expect(new Set(pools.map((p) => p.address)).size).toBe(pools.length);
    expect((await newPools()).data[0].attributes.address).toBe(pools.at(-1)!.address);
  }, 60_000);

  it('found in review: a restart from the saved state lists the pools launched before it, then launches with fresh keys', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'localnet-launches-state-'));
    const options = { ...OPTIONS, evmPort: 0, state: { dir: stateDir } };
    try {
      const first = await startLocalnet(options);
      first.state!.begin();
      for (let i = 0; i < 2 * EVERY; i++) first.producer.step();
      const launched = first.producer.pools().slice(-2);
      expect(launched.map((p) => p.label)).toEqual(['launch-0', 'launch-1']);
      await first.close();
      const second = await startLocalnet(options);
      try {
        // The authority signs with a key object of its own start: compared by address.
        const plain = (pools: readonly WorldPool[]) => pools.map((p) => ({ ...p, authority: p.authority.address }));
        expect(plain(second.producer.pools().slice(-2))).toEqual(plain(launched));
        expect((await newPools(second)).data.slice(0, 2).map((p: any) => p.attributes.address)).toEqual([launched[1]!.address, launched[0]!.address]);
        for (let i = 0; i < EVERY; i++) second.producer.step();
        expect(second.producer.pools().at(-1)!.label).toBe('launch-2');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 120_000);
});
