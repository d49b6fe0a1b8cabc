/**
 * The localnet's token account codec against bytes written out by hand from the SPL Token and
 * Token-2022 layouts (not produced by any codec), and its jsonParsed rendering.
 */
import { describe, expect, it } from 'vitest';
import { encodeBase58 } from '../../src/encoding/base58.ts';
import { toUiExtension } from '../../src/rpc/rpc-account-encoding.ts';
import {
  encodeMintAccount,
  encodeTlvEntries,
  encodeTokenAccount,
  findExtension,
  parseMintAccount,
  parseTlvEntries,
  parseTokenAccount,
} from '../../src/encoding/token-accounts.ts';
import { EXTENSION_CODECS } from '../../src/encoding/token-extension-codecs.ts';

/** Addresses whose 32 bytes are one repeated value, so the expected bytes can be written out. */
const key = (byte: number): number[] => new Array<number>(32).fill(byte);
const A = encodeBase58(Uint8Array.from(key(1)));
const B = encodeBase58(Uint8Array.from(key(2)));
const zeros = (n: number): number[] => new Array<number>(n).fill(0);
const u64 = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff, 0, 0, 0, 0];

/** Mint: COption<Pubkey> mint authority, u64 supply, u8 decimals, bool initialized, COption<Pubkey> freeze authority. */
const MINT_BYTES = [1, 0, 0, 0, ...key(1), ...u64(1_000_000), 6, 1, 0, 0, 0, 0, ...zeros(32)];
const MINT = { mintAuthority: A, supply: 1_000_000n, decimals: 6, isInitialized: true, freezeAuthority: null };
/** Account: mint, owner, u64 amount, COption delegate, u8 state, COption<u64> is_native, u64 delegated, COption close authority. */
const ACCOUNT_BYTES = [...key(1), ...key(2), ...u64(500), 0, 0, 0, 0, ...zeros(32), 2, 0, 0, 0, 0, ...zeros(8), ...zeros(8), 1, 0, 0, 0, ...key(2)];
const ACCOUNT = { mint: A, owner: B, amount: 500n, delegate: null, state: 'frozen' as const, isNative: null, delegatedAmount: 0n, closeAuthority: B };

describe('base states', () => {
  it('writes a mint and a token account byte for byte as laid out by hand', () => {
    expect([...encodeMintAccount(MINT)]).toEqual(MINT_BYTES);
    expect([...encodeTokenAccount(ACCOUNT)]).toEqual(ACCOUNT_BYTES);
  });

  it('writes a delegated wrapped-SOL account byte for byte as laid out by hand', () => {
    const delegated = { ...ACCOUNT, delegate: A, state: 'initialized' as const, isNative: 2_039_280n, delegatedAmount: 300n, closeAuthority: null };
    const bytes = [...key(1), ...key(2), ...u64(500), 1, 0, 0, 0, ...key(1), 1, 1, 0, 0, 0, ...u64(2_039_280), ...u64(300), 0, 0, 0, 0, ...zeros(32)];
    expect([...encodeTokenAccount(delegated)]).toEqual(bytes);
    expect(parseTokenAccount(Uint8Array.from(bytes))).toEqual({ ok: true, state: delegated, extensions: [], error: null });
  });

  it('reads the hand-built bytes back', () => {
    expect(parseMintAccount(Uint8Array.from(MINT_BYTES))).toEqual({ ok: true, state: MINT, extensions: [], error: null });
    expect(parseTokenAccount(Uint8Array.from(ACCOUNT_BYTES))).toEqual({ ok: true, state: ACCOUNT, extensions: [], error: null });
  });

  it('refuses a mint as an account, the multisig length and invalid flag bytes', () => {
    expect(parseTokenAccount(Uint8Array.from(MINT_BYTES))).toMatchObject({ ok: false });
    expect(parseMintAccount(new Uint8Array(355))).toEqual({ ok: false, error: 'data has the multisig length' });
    expect(parseMintAccount(Uint8Array.from(MINT_BYTES.map((b, i) => (i === 45 ? 2 : b))))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/is_initialized/),
    });
    expect(parseTokenAccount(Uint8Array.from(ACCOUNT_BYTES.map((b, i) => (i === 108 ? 3 : b))))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/state byte/),
    });
  });
});

describe('Token-2022 extensions', () => {
  it('pads a mint to the account-type byte and writes TLV entries as laid out by hand', () => {
    // TransferHook (type 14, 64 bytes): authority None (zeros), program id B.
    const expected = [...MINT_BYTES, ...zeros(165 - 82), 1, 14, 0, 64, 0, ...zeros(32), ...key(2)];
    const data = encodeMintAccount(MINT, [{ extension: 'transferHook', state: { authority: null, programId: B } }]);
    expect([...data]).toEqual(expected);
    const parsed = parseMintAccount(Uint8Array.from(expected));
    expect(parsed.ok && findExtension(parsed.extensions, 'transferHook')?.state).toEqual({ authority: null, programId: B });
  });

  it('writes account-side entries and transfer fees as laid out by hand', () => {
    // ImmutableOwner (7, empty), TransferFeeAmount (2, u64 withheld = 5).
    const expected = [...ACCOUNT_BYTES, 2, 7, 0, 0, 0, 2, 0, 8, 0, ...u64(5)];
    expect([
      ...encodeTokenAccount(ACCOUNT, [
        { extension: 'immutableOwner', state: {} },
        { extension: 'transferFeeAmount', state: { withheldAmount: 5n } },
      ]),
    ]).toEqual(expected);
    // TransferFeeConfig (1, 108 bytes): two optional keys, u64 withheld, two (u64 epoch, u64 maximum fee, u16 bps).
    const fee = [...key(1), ...zeros(32), ...u64(0), ...u64(3), ...u64(100), 0x10, 0x27, ...u64(4), ...u64(200), 0xe8, 0x03];
    const { extensions, error } = parseTlvEntries(Uint8Array.from([1, 0, 108, 0, ...fee]));
    expect(error).toBeNull();
    expect(extensions[0]).toEqual({
      typeId: 1,
      extension: 'transferFeeConfig',
      state: {
        transferFeeConfigAuthority: A,
        withdrawWithheldAuthority: null,
        withheldAmount: 0n,
        olderTransferFee: { epoch: 3n, maximumFee: 100n, transferFeeBasisPoints: 10_000 },
        newerTransferFee: { epoch: 4n, maximumFee: 200n, transferFeeBasisPoints: 1000 },
      },
    });
  });

  it('writes token metadata in its Borsh layout', () => {
    // Optional update authority, mint, then u32-length-prefixed name, symbol, uri and a u32-counted list of pairs.
    const value = [...key(1), ...key(2), 2, 0, 0, 0, 0x61, 0x62, 0, 0, 0, 0, 1, 0, 0, 0, 0x75, 1, 0, 0, 0, 1, 0, 0, 0, 0x6b, 1, 0, 0, 0, 0x76];
    const tlv = encodeTlvEntries([
      { extension: 'tokenMetadata', state: { updateAuthority: A, mint: B, name: 'ab', symbol: '', uri: 'u', additionalMetadata: [['k', 'v']] } },
    ]);
    expect([...tlv]).toEqual([19, 0, value.length, 0, ...value]);
    const bad = Uint8Array.from([19, 0, value.length, 0, ...value.map((b, i) => (i === 68 ? 0xff : b))]);
    expect(parseTlvEntries(bad).extensions[0]).toMatchObject({ extension: 'unparseableExtension' });
  });

  it('keeps an extended account off the multisig length', () => {
    const exts = [
      {
        extension: 'transferFeeConfig',
        state: {
          transferFeeConfigAuthority: A,
          withdrawWithheldAuthority: null,
          withheldAmount: 0n,
          olderTransferFee: { epoch: 0n, maximumFee: 0n, transferFeeBasisPoints: 0 },
          newerTransferFee: { epoch: 0n, maximumFee: 0n, transferFeeBasisPoints: 0 },
        },
      },
      { extension: 'pausableConfig', state: { authority: A, paused: false } },
      { extension: 'permanentDelegate', state: { delegate: A } },
      { extension: 'nonTransferable', state: {} },
    ] as const;
    expect(166 + encodeTlvEntries(exts).length).toBe(355);
    const data = encodeMintAccount(MINT, exts);
    expect([...data.subarray(355)]).toEqual([0, 0]);
    expect(parseMintAccount(data)).toMatchObject({ ok: true, error: null, extensions: { length: 4 } });
  });

  it('knows the 27 extension types with ids 1..27 and marks the unknown and the misfit unparseable', () => {
    expect(
      Object.values(EXTENSION_CODECS)
        .map((c) => c.typeId)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    const { extensions } = parseTlvEntries(Uint8Array.from([99, 0, 1, 0, 7, 12, 0, 31, 0, ...zeros(31)]));
    expect(extensions.map((e) => [e.typeId, e.extension])).toEqual([
      [99, 'unparseableExtension'],
      [12, 'unparseableExtension'],
    ]);
  });
});

describe('jsonParsed rendering', () => {
  it('prints markers without state, u64 as numbers and the scaled multipliers as strings', () => {
    const data = encodeMintAccount(MINT, [
      { extension: 'nonTransferable', state: {} },
      { extension: 'scaledUiAmountConfig', state: { authority: null, multiplier: 1.5, newMultiplierEffectiveTimestamp: 7n, newMultiplier: 2 } },
      { extension: 'transferFeeAmount', state: { withheldAmount: 42n } },
    ]);
    const parsed = parseMintAccount(data);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.extensions.map(toUiExtension)).toEqual([
      { extension: 'nonTransferable' },
      { extension: 'scaledUiAmountConfig', state: { authority: null, multiplier: '1.5', newMultiplierEffectiveTimestamp: 7, newMultiplier: '2' } },
      { extension: 'transferFeeAmount', state: { withheldAmount: 42 } },
    ]);
  });
});
