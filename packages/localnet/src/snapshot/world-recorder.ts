/**
 * What building the world does to the chain, as a list of writes that a later start plays back
 * instead of building again: the accounts the builder set (in order, repeats included, so the
 * token index sees them in the same order) and the history it executed (each signed transaction
 * as sent, each faucet grant, each closed slot). The costly part of a build is deriving keys and
 * addresses and encoding accounts, not executing about a hundred transactions, so a replay runs
 * the history again for real: statuses, indexes, blockhashes and block times come out of the
 * chain itself, never out of the file.
 */
import { type AccountKeys, accountKeysFromRecord, accountKeysOf } from '../chain/chain-accounts.ts';
import type { AccountInput, LocalChain } from '../chain/local-chain.ts';

/**
 * One write of the world's build. Amounts are decimal strings, bytes base64 (the file is JSON). A
 * set carries what writing it derives in base58 (the address's bytes, a token account's mint and
 * owner: see `accountKeysFromRecord`), so a playback does none.
 */
export type WorldWrite =
  | readonly [
      'set',
      address: string,
      lamports: string,
      owner: string,
      executable: 0 | 1,
      data: string,
      addressBytes: string,
      token: readonly [mint: string, owner: string] | null,
    ]
  | readonly ['tx', wire: string, signature: string]
  | readonly ['drop', address: string, lamports: string, signature: string]
  | readonly ['slots', count: number];

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** The chain, seen through a recorder: `chain` is handed to the builder, `writes()` read after. */
export function recordWorldWrites(target: LocalChain): { readonly chain: LocalChain; writes(): readonly WorldWrite[] } {
  const writes: WorldWrite[] = [];
  // Prototype delegation, not a copy: every other member (views, getters) stays the target's own.
  const chain: LocalChain = Object.create(target);
  Object.assign(chain, {
    setAccount(address: string, account: AccountInput, keys: AccountKeys = accountKeysOf(address, account)): void {
      const derived = [base64(keys.address), keys.token ? ([keys.token.mint, keys.token.owner] as const) : null] as const;
      writes.push(['set', address, account.lamports.toString(), account.owner, account.executable ? 1 : 0, base64(account.data), ...derived]);
      target.setAccount(address, account, keys);
    },
    sendTransaction(wire: Uint8Array) {
      const result = target.sendTransaction(wire);
      if (result.ok) writes.push(['tx', base64(wire), result.signature]);
      return result;
    },
    airdrop(address: string, lamports: bigint) {
      const result = target.airdrop(address, lamports);
      if (result.ok) writes.push(['drop', address, lamports.toString(), result.signature]);
      return result;
    },
    advanceSlot() {
      const last = writes.at(-1);
      if (last?.[0] === 'slots') writes[writes.length - 1] = ['slots', last[1] + 1];
      else writes.push(['slots', 1]);
      return target.advanceSlot();
    },
  } satisfies Partial<LocalChain>);
  return { chain, writes: () => writes };
}

/**
 * A write decoded for playback: text, base64 and base58 turned into bytes and numbers once. A
 * process that starts many localnets (a test runner's worker) plays one snapshot many times; the
 * decoding was half of a playback. Read-only once made: LiteSVM copies what it is given.
 */
export type PreparedWrite =
  | readonly ['set', address: string, account: AccountInput, keys: AccountKeys]
  | readonly ['tx', wire: Uint8Array, signature: string]
  | readonly ['drop', address: string, lamports: bigint, signature: string]
  | readonly ['slots', count: number];

/** `writes` decoded for `replayWorldWrites`. */
export function prepareWorldWrites(writes: readonly WorldWrite[]): readonly PreparedWrite[] {
  return writes.map((write): PreparedWrite => {
    switch (write[0]) {
      case 'set': {
        const account: AccountInput = { lamports: BigInt(write[2]), owner: write[3], executable: write[4] === 1, data: Buffer.from(write[5], 'base64') };
        // Its own 32 bytes, not a view into Buffer's shared pool.
        const address = Uint8Array.from(Buffer.from(write[6], 'base64'));
        return ['set', write[1], account, accountKeysFromRecord(account, { address, token: write[7] })];
      }
      case 'tx':
        return ['tx', Buffer.from(write[1], 'base64'), write[2]];
      case 'drop':
        return ['drop', write[1], BigInt(write[2]), write[3]];
      default:
        return write; // ['slots', count]: nothing to decode
    }
  });
}

/**
 * Plays `writes` on a fresh chain. A transaction that does not land as it did when recorded (a
 * refusal, an error, another signature) means the chain's code is not the one that recorded them:
 * it throws, and the caller builds the world on a new chain instead.
 */
export function replayWorldWrites(chain: LocalChain, writes: readonly PreparedWrite[]): void {
  for (const write of writes) {
    switch (write[0]) {
      case 'set':
        chain.setAccount(write[1], write[2], write[3]);
        break;
      case 'tx':
      case 'drop': {
        // A copy: what the chain decodes may keep views of the wire, and the prepared one serves every playback.
        const result = write[0] === 'tx' ? chain.sendTransaction(Uint8Array.from(write[1])) : chain.airdrop(write[1], write[2]);
        const expected = write[0] === 'tx' ? write[2] : write[3];
        if (!result.ok || result.tx.err !== null || result.signature !== expected)
          throw new Error(`world snapshot: a recorded transaction (${expected}) did not land as recorded`);
        break;
      }
      case 'slots':
        for (let i = 0; i < write[1]; i += 1) chain.advanceSlot();
        break;
    }
  }
}
