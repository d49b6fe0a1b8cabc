/**
 * The world snapshot: a start that finds one of its key plays it back and must end with the chain
 * and the world description a build would have given (at the start's own time); a snapshot of
 * another key, a damaged one or a torn one is never used: the world is built and the file written
 * again. Every check compares state (accounts, history, indexes, the description), never time.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import { accountKeysOf } from '../../src/chain/chain-accounts.ts';
import { encodeWorld } from '../../src/snapshot/world-codec.ts';
import { prepareWorldWrites } from '../../src/snapshot/world-recorder.ts';
import { openWorld, worldSnapshotFile, worldSnapshotKey } from '../../src/snapshot/world-snapshot.ts';
import { readWorldSnapshot, writeWorldSnapshot } from '../../src/snapshot/world-snapshot-file.ts';
import { startLocalnet } from '../../src/start-localnet.ts';
import { buildWorld, type World } from '../../src/world/world.ts';
import { loadWorldFixture, type WorldFixture } from '../../src/world/world-fixture.ts';

const SEED = 'snapshot-seed';
/** Two starts a day and a half apart: the snapshot's time stamps must follow the later one. */
const BUILT_AT = 1_750_000_000;
const LATER = BUILT_AT + 129_600;

const chainAt = (startUnixSeconds: number) => (): LocalChain => createLocalChain({ slotsPerEpoch: 32n, startUnixSeconds });

/**
 * The committed fixture with 50 large-holder accounts instead of thousands: the fallback tests build
 * the world five times, and a build of this one costs about half the CPU. The first test plays back
 * the committed world itself, the one every other test file's localnet plays back.
 */
const smallFixture = (): WorldFixture => {
  const fixture = loadWorldFixture();
  return { ...fixture, largeHolderMint: { ...fixture.largeHolderMint, accounts: 50 } };
};

/** Everything a client could read of the world's part of the chain, as one digest. */
function chainState(chain: LocalChain, world: World): string {
  const h = createHash('sha256');
  const addresses = [...new Set([...world.addresses, chain.faucetAddress, ...world.tipAccounts])].sort();
  for (const address of addresses) {
    const a = chain.getAccount(address);
    h.update(address).update(a === null ? 'none' : `${a.lamports}:${a.owner}:${a.executable}:`);
    if (a !== null) h.update(a.data);
    const history = chain.signaturesForAddress(address, { limit: 1000, commitment: 'finalized' });
    h.update(JSON.stringify(history.map((s) => [s.signature, String(s.slot), s.blockTime])));
  }
  for (const m of world.mints.values()) h.update(m.address).update(chain.tokenAccountsByMint(m.address).join(','));
  for (const c of ['processed', 'confirmed', 'finalized'] as const) {
    h.update(`${chain.slot(c)}:${chain.blockHeight(c)}:${chain.latestBlockhash(c).blockhash}`);
  }
  return h.digest('hex');
}

describe('world snapshot', () => {
  let dir: string;
  /** The reference: the world built at the later time, with no snapshot anywhere. */
  let reference: { chain: LocalChain; world: World };
  /** The same of the small fixture, built once for the tests that use it. */
  let smallReference: Promise<{ chain: LocalChain; world: World }> | undefined;
  const small = () => {
    smallReference ??= (async () => {
      const chain = chainAt(LATER)();
      return { chain, world: await buildWorld(chain, { seed: SEED, fixture: smallFixture() }) };
    })();
    return smallReference;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'world-snapshot-'));
    const chain = chainAt(LATER)();
    reference = { chain, world: await buildWorld(chain, { seed: SEED }) };
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const open = (startUnixSeconds: number, lines: string[] = [], fixture = loadWorldFixture()) =>
    openWorld({ seed: SEED, createChain: chainAt(startUnixSeconds), snapshotDir: dir, fixture, progress: (l) => lines.push(l) });

  it('a build keeps a snapshot that a later start plays back into the same chain and world', async () => {
    const built = await open(BUILT_AT);
    expect(built.from).toBe('built');
    built.save();
    const lines: string[] = [];
    const played = await open(LATER, lines);
    expect(played.from).toBe('snapshot');
    expect(lines.join('\n')).toMatch(/from its snapshot/);
    expect(chainState(played.chain, played.world)).toBe(chainState(reference.chain, reference.world));
    expect(encodeWorld(played.world)).toBe(encodeWorld(reference.world));
    // The description is the one the pools and mints are read with, time stamps included.
    expect(played.world.pools.map((p) => p.createdAt)).toEqual(reference.world.pools.map((p) => p.createdAt));
    expect(played.world.mintsByAddress.get(played.world.stablecoin.mint)?.key).toBe(reference.world.mintsByAddress.get(reference.world.stablecoin.mint)?.key);
    // Its signers sign: the keys came back, not only their addresses.
    const trader = played.world.traders[0]!;
    expect(trader.signer.address).toBe(reference.world.traders[0]!.signer.address);
    expect(trader.signer.sign(new Uint8Array([1, 2, 3]))).toEqual(reference.world.traders[0]!.signer.sign(new Uint8Array([1, 2, 3])));
    // A later start in the same process plays the snapshot it already decoded: the same chain
    // again, on a chain of its own (the first one's accounts are not shared with it).
    const again = await open(LATER);
    expect(again.from).toBe('snapshot');
    again.chain.setAccount(played.world.stablecoin.mint, { lamports: 1n, data: new Uint8Array(), owner: '11111111111111111111111111111111' });
    expect(chainState(played.chain, played.world)).toBe(chainState(reference.chain, reference.world));
    const third = await open(LATER);
    expect(chainState(third.chain, third.world)).toBe(chainState(reference.chain, reference.world));
    // A played-back write derives nothing in base58: what the file recorded for it (the address's
    // bytes, a token account's mint and owner) is what deriving it from the account gives.
    const kept = readWorldSnapshot(worldSnapshotFile(dir, SEED), worldSnapshotKey(SEED, loadWorldFixture()));
    if (!kept.ok) throw new Error(kept.reason);
    const sets = prepareWorldWrites(kept.body.writes).filter((w) => w[0] === 'set');
    expect(sets.filter((w) => w[3].token !== null).length).toBeGreaterThan(1000);
    expect(sets.map((w) => w[3])).toEqual(sets.map((w) => accountKeysOf(w[1], w[2])));
  }, 120_000);

  it('a snapshot of another fixture is not used: the world is built from the new one and kept', async () => {
    const fixture = smallFixture();
    const ref = await small();
    const changed = { ...fixture, tipAccountLamports: String(BigInt(fixture.tipAccountLamports) + 1n) };
    const lines: string[] = [];
    const rebuilt = await open(LATER, lines, changed);
    expect(rebuilt.from).toBe('built');
    expect(lines.join('\n')).toMatch(/of another seed, fixture or localnet code/);
    const tip = fixture.jitoTipAccounts[0]!;
    expect(rebuilt.chain.getAccount(tip)?.lamports).toBe(ref.chain.getAccount(tip)!.lamports + 1n);
    rebuilt.save();
    const again = await open(LATER, [], changed);
    expect(again.from).toBe('snapshot');
    expect(chainState(again.chain, again.world)).toBe(chainState(rebuilt.chain, rebuilt.world));
    // Back to the unchanged one: that snapshot is of the changed one, so it is built again.
    const back = await open(LATER, [], fixture);
    expect(back.from).toBe('built');
    expect(chainState(back.chain, back.world)).toBe(chainState(ref.chain, ref.world));
    back.save();
  }, 120_000);

  it('a damaged, torn or unplayable snapshot is built again, never trusted, and replaced by a whole one', async () => {
    const fixture = smallFixture();
    const ref = await small();
    const file = worldSnapshotFile(dir, SEED);
    const whole = readFileSync(file);
    // Played once first: this process keeps what it decoded, and a file changed since must not be
    // taken from that memory.
    expect((await open(LATER, [], fixture)).from).toBe('snapshot');
    // One byte of an account's data flipped deep in the body (the last account write): still JSON, wrong digest.
    const flipped = Buffer.from(whole);
    const at = flipped.lastIndexOf('"set"');
    expect(at).toBeGreaterThan(0);
    flipped[at + 60] = flipped[at + 60] === 0x41 ? 0x42 : 0x41;
    writeFileSync(file, flipped);
    const lines: string[] = [];
    const afterFlip = await open(LATER, lines, fixture);
    expect(afterFlip.from).toBe('built');
    expect(lines.join('\n')).toMatch(/damaged/);
    expect(chainState(afterFlip.chain, afterFlip.world)).toBe(chainState(ref.chain, ref.world));
    afterFlip.save();
    expect(readFileSync(file).equals(whole)).toBe(true);
    // Cut short, as a write the machine lost half of would be.
    truncateSync(file, Math.floor(whole.length / 3));
    const afterTear = await open(LATER, lines, fixture);
    expect(afterTear.from).toBe('built');
    expect(chainState(afterTear.chain, afterTear.world)).toBe(chainState(ref.chain, ref.world));
    afterTear.save();
    // Whole and of its key, but a recorded transaction that does not land as recorded (another
    // signature): the playback stops and the world is built on a new chain.
    const read = readWorldSnapshot(file, worldSnapshotKey(SEED, fixture));
    if (!read.ok) throw new Error(read.reason);
    const writes = read.body.writes.map((w) => (w[0] === 'drop' ? (['drop', w[1], w[2], 'x'.repeat(88)] as const) : w));
    writeWorldSnapshot(file, worldSnapshotKey(SEED, fixture), { ...read.body, writes });
    const afterBadHistory = await open(LATER, lines, fixture);
    expect(afterBadHistory.from).toBe('built');
    expect(lines.join('\n')).toMatch(/did not play back/);
    expect(chainState(afterBadHistory.chain, afterBadHistory.world)).toBe(chainState(ref.chain, ref.world));
    afterBadHistory.save();
    expect((await open(LATER, [], fixture)).from).toBe('snapshot');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('the embedded start with a state directory writes the snapshot only once its state is begun', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'world-snapshot-state-'));
    const options = { host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, evmPort: 0, slotMs: 400, slotsPerEpoch: 32, seed: SEED, produce: false };
    try {
      const first = await startLocalnet({ ...options, state: { dir: stateDir } });
      const before = readdirSync(stateDir);
      first.state!.begin();
      const after = readdirSync(stateDir);
      await first.close();
      expect(before.filter((f) => f.endsWith('.snapshot'))).toEqual([]);
      expect(after).toContain(worldSnapshotFile(stateDir, SEED).split('/').at(-1));
      const lines: string[] = [];
      const second = await startLocalnet({ ...options, state: { dir: stateDir }, progress: (l) => lines.push(l) });
      await second.close();
      expect(lines.join('\n')).toMatch(/from its snapshot/);
      expect(second.world.addresses).toEqual(first.world.addresses);
      expect(second.chain.getAccount(second.world.stablecoin.mint)).toEqual(first.chain.getAccount(first.world.stablecoin.mint));
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 120_000);
});
