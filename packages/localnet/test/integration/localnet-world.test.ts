import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { findExtension, parseMintAccount, parseTokenAccount } from '../../src/encoding/token-accounts.ts';
import { createLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import { createBlockProducer } from '../../src/traffic/block-producer.ts';
import { trafficBounds } from '../../src/start-localnet.ts';
import { buildWorld, type World } from '../../src/world/world.ts';
import { createWorldPoolReader } from '../../src/world/world-pools.ts';
import { buildSignedWire, transferCheckedIx } from '../../src/signing/world-transactions.ts';

const START_UNIX = 1_750_000_000;

function freshChain(): LocalChain {
  return createLocalChain({ slotsPerEpoch: 32n, startUnixSeconds: START_UNIX });
}

/** sha256 over every world address's lamports, owner and data, in address order. */
function stateHash(chain: LocalChain, world: World): string {
  const h = createHash('sha256');
  for (const address of [...world.addresses].sort()) {
    const a = chain.getAccount(address);
    h.update(address).update(a === null ? 'none' : `${a.lamports}:${a.owner}:${a.executable}:`);
    if (a !== null) h.update(a.data);
  }
  return h.digest('hex');
}

describe('localnet world', () => {
  let chain: LocalChain;
  let world: World;
  beforeAll(async () => {
    chain = freshChain();
    world = await buildWorld(chain, { seed: 'test-seed' });
  }, 120_000);

  it('same seed gives the same world; another seed a different one', async () => {
    const again = freshChain();
    const world2 = await buildWorld(again, { seed: 'test-seed' });
    expect(world2.addresses).toEqual(world.addresses);
    expect(stateHash(again, world2)).toBe(stateHash(chain, world));
    const other = freshChain();
    const world3 = await buildWorld(other, { seed: 'other-seed' });
    expect(stateHash(other, world3)).not.toBe(stateHash(chain, world));
  }, 120_000);

  it('writes real mints at their real addresses and authorities', () => {
    const usdc = chain.getAccount('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    const parsed = usdc && parseMintAccount(usdc.data);
    expect(parsed?.ok && parsed.state).toMatchObject({
      decimals: 6,
      mintAuthority: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG',
      freezeAuthority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar',
    });
    const bonk = chain.getAccount('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263');
    const bonkMint = bonk && parseMintAccount(bonk.data);
    expect(bonkMint?.ok && bonkMint.state).toMatchObject({ decimals: 5, mintAuthority: null, freezeAuthority: null });
  });

  it('each Token-2022 risk mint parses with its intended extensions', () => {
    for (const m of world.mints.values()) {
      if (m.kind !== 'risk') continue;
      const account = chain.getAccount(m.address);
      expect(account?.owner).toBe('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
      const parsed = parseMintAccount(account?.data ?? new Uint8Array());
      if (!parsed.ok) throw new Error(`${m.key}: ${parsed.error}`);
      expect(parsed.error).toBeNull();
      expect(parsed.extensions.map((e) => e.extension)).toEqual(m.extensions);
    }
    const fee = parseMintAccount(chain.getAccount(world.mints.get('transferFeeHigh')!.address)!.data);
    if (!fee.ok) throw new Error(fee.error);
    expect(findExtension(fee.extensions, 'transferFeeConfig')?.state.olderTransferFee.transferFeeBasisPoints).toBe(1000);
    const hook = parseMintAccount(chain.getAccount(world.mints.get('transferHookUpgradeable')!.address)!.data);
    if (!hook.ok) throw new Error(hook.error);
    expect(findExtension(hook.extensions, 'transferHook')?.state.programId).toBe(world.hookPrograms.upgradeable.programId);
    expect(chain.getAccount(world.hookPrograms.upgradeable.programId)?.owner).toBe('BPFLoaderUpgradeab1e11111111111111111111111');
    expect(world.hookPrograms.upgradeable.upgradeAuthority).not.toBeNull();
    expect(world.hookPrograms.immutable.upgradeAuthority).toBeNull();
  });

  it('the Token-2022 program accepts the encoded mints (permanent delegate moves a fee-bearing token)', () => {
    const multi = world.mints.get('multiRisk')!;
    const [from, to] = multi.holders;
    const ix = transferCheckedIx({
      source: from!.address,
      mint: multi.address,
      destination: to!.address,
      authority: world.permanentDelegate.address,
      amount: 1_000_000n,
      decimals: multi.decimals,
      programId: multi.programId,
    });
    chain.airdrop(world.permanentDelegate.address, 1_000_000_000n);
    const result = chain.sendTransaction(buildSignedWire(world.permanentDelegate, [ix], chain.latestBlockhash('processed').blockhash).wire);
    expect(result.ok && result.tx.err).toBeNull();
    const dest = parseTokenAccount(chain.getAccount(to!.address)!.data);
    if (!dest.ok) throw new Error(dest.error);
    // 10% fee withheld in the destination account.
    expect(findExtension(dest.extensions, 'transferFeeAmount')?.state.withheldAmount).toBe(100_000n);
  });

  it('holder distributions are as constructed', () => {
    const share = (key: string, i: number): number => {
      const m = world.mints.get(key)!;
      return Number((m.holders[i]!.amount * 10_000n) / m.supply) / 100;
    };
    const flat = world.mints.get('flat')!;
    expect(new Set(flat.holders.map((h) => h.amount)).size).toBe(1);
    expect(share('concentrated', 0)).toBe(60);
    expect(world.mints.get('singleHolder')!.holders).toHaveLength(1);
    const burn = world.mints.get('burnHolder')!;
    expect(burn.holders[0]!.owner).toBe(world.burnAddress);
    expect(share('burnHolder', 0)).toBe(40);
    expect(chain.tokenAccountCount?.(world.largeHolderMint.mint) ?? world.largeHolderMint.accountCount).toBeGreaterThanOrEqual(5000);
    for (const m of world.mints.values()) {
      const onChain = parseMintAccount(chain.getAccount(m.address)!.data);
      if (!onChain.ok) throw new Error(onChain.error);
      expect(onChain.state.supply).toBe(m.supply);
    }
  });

  it('wallets carry their executed history', () => {
    for (const w of [...world.wallets.fresh, ...world.wallets.active, ...world.wallets.heavy]) {
      const sigs = chain.signaturesForAddress(w.address, { limit: 1000, commitment: 'finalized' }).map((e) => e.signature);
      expect(new Set(sigs)).toEqual(new Set(w.signatures));
    }
    expect(world.wallets.heavy[0]!.signatures.length).toBeGreaterThan(50);
    expect(world.wallets.fresh[0]!.signatures).toHaveLength(2);
    for (const w of world.wallets.empty) expect(chain.getAccount(w.address)).toBeNull();
    for (const tip of world.tipAccounts) expect(chain.getAccount(tip)?.lamports).toBeGreaterThan(0n);
  });

  it('pools read plausible prices from chain (SOL ~ $150)', () => {
    const sol = createWorldPoolReader(chain, () => world.pools)
      .pools()
      .find((p) => p.label === 'SOL-USDC')!;
    const price = Number(sol.reserveB) / 1e6 / (Number(sol.reserveA) / 1e9);
    expect(price).toBeGreaterThan(140);
    expect(price).toBeLessThan(160);
  });

  it('producer slots carry the transactions it reports, with their CU prices and tips', () => {
    const producer = createBlockProducer({ chain, world, seed: 7 });
    const slots = Array.from({ length: 12 }, () => producer.step());
    const kinds = new Set(slots.flatMap((s) => s.transactions.map((t) => t.kind)));
    expect(kinds.has('swap') && kinds.has('tip')).toBe(true);
    for (const s of slots) {
      for (const t of s.transactions) {
        expect(t.landed).toBe(true);
        const tx = chain.transaction(t.signature!, 'processed');
        expect(tx?.slot).toBe(s.slot);
        expect(tx?.err !== null).toBe(t.failed);
        if (t.tipAccount !== null) {
          const i = tx!.accountKeys.indexOf(t.tipAccount);
          expect(tx!.postBalances[i]! - tx!.preBalances[i]!).toBe(t.tipLamports);
        }
      }
    }
    expect(producer.history()).toHaveLength(12);
  });

  it('lighter traffic (--txs-per-slot): every slot holds from a quarter of the most to the most; 0 none, the slots still advance', () => {
    const producer = createBlockProducer({ chain, world, seed: 11, ...trafficBounds(6) });
    const counts = Array.from({ length: 30 }, () => producer.step().transactions.length);
    // A drawn swap can come to nothing (an empty draft), so a slot may land fewer than it drew.
    expect(Math.max(...counts)).toBeLessThanOrEqual(6);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30);
    expect(trafficBounds(20)).toEqual({ minTxsPerSlot: 5, maxTxsPerSlot: 20 });
    expect(trafficBounds(0)).toEqual({ minTxsPerSlot: 0, maxTxsPerSlot: 0 });
    expect(() => trafficBounds(-1)).toThrow(/non-negative integer/);
    const quiet = createBlockProducer({ chain, world, seed: 12, ...trafficBounds(0) });
    const before = chain.slot('processed');
    expect(quiet.step().transactions).toHaveLength(0);
    expect(chain.slot('processed')).toBe(before + 1n);
  });

  it('the producer is deterministic given the seed and world', async () => {
    const run = async (): Promise<string[]> => {
      const c = freshChain();
      const w = await buildWorld(c, { seed: 'producer-seed' });
      const p = createBlockProducer({ chain: c, world: w, seed: 3 });
      return Array.from({ length: 4 }, () => p.step()).flatMap((s) => s.transactions.map((t) => `${t.signature}:${t.computeUnitPrice}:${t.tipLamports}`));
    };
    expect(await run()).toEqual(await run());
  }, 120_000);
});
