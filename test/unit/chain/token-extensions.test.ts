/**
 * The service's Token-2022 decoder against bytes it did not write: the localnet's encoder (an
 * independent implementation on kit's codecs and the SPL Token client) and bytes built by hand
 * at the documented offsets, so a layout mistake cannot hide behind a symmetric encoder.
 */
import { encodeMintAccount, encodeTlvEntries, encodeTokenAccount, type KnownExtensionInput } from '@solana-x402-intel/localnet';
import { describe, expect, it } from 'vitest';
import { addressToBytes, bytesToAddress } from '../../../src/chain/tokens/byte-cursor.ts';
import {
  EXTENSION_CODECS,
  findExtension,
  parseMintAccount,
  parseTlvEntries,
  parseToken2022Extensions,
  parseTokenAccount,
  toUiExtension,
  type MintState,
  type TokenAccountState,
} from '../../../src/chain/tokens/token-extensions.ts';

const A = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const B = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const C = '1nc1nerator11111111111111111111111111111111';
const b64 = (n: number, fill: number): string => Buffer.from(new Uint8Array(n).fill(fill)).toString('base64');

const MINT: MintState = { mintAuthority: A, supply: 123_456_789_000n, decimals: 6, isInitialized: true, freezeAuthority: null };
const ACCOUNT: TokenAccountState = {
  mint: A,
  owner: B,
  amount: 2n ** 63n + 5n,
  delegate: C,
  state: 'frozen',
  isNative: 2_039_280n,
  delegatedAmount: 7n,
  closeAuthority: null,
};

/** One sample state per extension this codec knows. */
const SAMPLES: readonly KnownExtensionInput[] = [
  {
    extension: 'transferFeeConfig',
    state: {
      transferFeeConfigAuthority: A,
      withdrawWithheldAuthority: null,
      withheldAmount: 99n,
      olderTransferFee: { epoch: 1n, maximumFee: 10n, transferFeeBasisPoints: 50 },
      newerTransferFee: { epoch: 2n, maximumFee: 2n ** 64n - 1n, transferFeeBasisPoints: 5000 },
    },
  },
  { extension: 'transferFeeAmount', state: { withheldAmount: 42n } },
  { extension: 'mintCloseAuthority', state: { closeAuthority: B } },
  { extension: 'confidentialTransferMint', state: { authority: A, autoApproveNewAccounts: true, auditorElgamalPubkey: b64(32, 7) } },
  {
    extension: 'confidentialTransferAccount',
    state: {
      approved: true,
      elgamalPubkey: b64(32, 1),
      pendingBalanceLo: b64(64, 2),
      pendingBalanceHi: b64(64, 3),
      availableBalance: b64(64, 4),
      decryptableAvailableBalance: b64(36, 5),
      allowConfidentialCredits: true,
      allowNonConfidentialCredits: false,
      pendingBalanceCreditCounter: 1n,
      maximumPendingBalanceCreditCounter: 65536n,
      expectedPendingBalanceCreditCounter: 3n,
      actualPendingBalanceCreditCounter: 4n,
    },
  },
  { extension: 'defaultAccountState', state: { accountState: 'frozen' } },
  { extension: 'immutableOwner', state: {} },
  { extension: 'memoTransfer', state: { requireIncomingTransferMemos: true } },
  { extension: 'nonTransferable', state: {} },
  {
    extension: 'interestBearingConfig',
    state: {
      rateAuthority: A,
      initializationTimestamp: 1_700_000_000n,
      preUpdateAverageRate: -250,
      lastUpdateTimestamp: 1_700_000_500n,
      currentRate: 32767,
    },
  },
  { extension: 'cpiGuard', state: { lockCpi: true } },
  { extension: 'permanentDelegate', state: { delegate: C } },
  { extension: 'nonTransferableAccount', state: {} },
  { extension: 'transferHook', state: { authority: null, programId: B } },
  { extension: 'transferHookAccount', state: { transferring: false } },
  {
    extension: 'confidentialTransferFeeConfig',
    state: {
      authority: A,
      withdrawWithheldAuthorityElgamalPubkey: null,
      harvestToMintEnabled: true,
      withheldAmount: b64(64, 9),
    },
  },
  { extension: 'confidentialTransferFeeAmount', state: { withheldAmount: b64(64, 8) } },
  { extension: 'metadataPointer', state: { authority: A, metadataAddress: B } },
  {
    extension: 'tokenMetadata',
    state: {
      updateAuthority: A,
      mint: B,
      name: 'Risky ☢ Token',
      symbol: 'RSK',
      uri: 'https://example.invalid/r.json',
      additionalMetadata: [
        ['k1', 'v1'],
        ['ключ', 'значение'],
      ],
    },
  },
  { extension: 'groupPointer', state: { authority: null, groupAddress: A } },
  { extension: 'tokenGroup', state: { updateAuthority: A, mint: B, size: 3n, maxSize: 10n } },
  { extension: 'groupMemberPointer', state: { authority: A, memberAddress: null } },
  { extension: 'tokenGroupMember', state: { mint: A, group: B, memberNumber: 2n } },
  {
    extension: 'confidentialMintBurn',
    state: {
      confidentialSupply: b64(64, 1),
      decryptableSupply: b64(36, 2),
      supplyElgamalPubkey: b64(32, 3),
      pendingBurn: b64(64, 4),
    },
  },
  { extension: 'scaledUiAmountConfig', state: { authority: A, multiplier: 1.5, newMultiplierEffectiveTimestamp: 1_800_000_000n, newMultiplier: 2 } },
  { extension: 'pausableConfig', state: { authority: B, paused: true } },
  { extension: 'pausableAccount', state: {} },
];

/** Deterministic PRNG for the garbage tests (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('base layouts', () => {
  it('decodes an 82-byte mint and a 165-byte account as written by the localnet', () => {
    const mintBytes = encodeMintAccount(MINT);
    expect(mintBytes.length).toBe(82);
    expect(parseMintAccount(mintBytes)).toEqual({ ok: true, state: MINT, extensions: [], error: null });
    const accBytes = encodeTokenAccount(ACCOUNT);
    expect(accBytes.length).toBe(165);
    expect(parseTokenAccount(accBytes)).toEqual({ ok: true, state: ACCOUNT, extensions: [], error: null });
  });

  it('decodes a hand-built mint at the documented offsets', () => {
    const data = new Uint8Array(82);
    data[0] = 1; // COption Some
    data.set(addressToBytes(A), 4);
    new DataView(data.buffer).setBigUint64(36, 1_000_000n, true);
    data[44] = 9;
    data[45] = 1;
    const parsed = parseMintAccount(data);
    expect(parsed).toMatchObject({ ok: true, state: { mintAuthority: A, supply: 1_000_000n, decimals: 9, isInitialized: true, freezeAuthority: null } });
  });

  it('rejects a mint given as an account and vice versa', () => {
    expect(parseTokenAccount(encodeMintAccount(MINT)).ok).toBe(false);
    expect(parseMintAccount(encodeTokenAccount(ACCOUNT)).ok).toBe(false);
  });

  it('reports a bad COption tag instead of throwing', () => {
    const data = encodeMintAccount(MINT);
    data[0] = 7;
    const parsed = parseMintAccount(data);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/COption/);
  });
});

describe('extensions', () => {
  it('knows 27 extension types with unique ids 1..27', () => {
    const ids = Object.values(EXTENSION_CODECS)
      .map((c) => c.typeId)
      .sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
  });

  it.each(SAMPLES.map((s) => [s.extension, s] as const))('decodes %s alone in a mint as written by the localnet', (_name, sample) => {
    const data = encodeMintAccount(MINT, [sample]);
    expect(data[165]).toBe(1);
    const parsed = parseMintAccount(data);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.error).toBeNull();
    expect(parsed.state).toEqual(MINT);
    expect(parsed.extensions).toEqual([{ typeId: EXTENSION_CODECS[sample.extension].typeId, ...sample }]);
  });

  it('decodes all of them together in an account, in order', () => {
    const data = encodeTokenAccount(ACCOUNT, SAMPLES);
    expect(data[165]).toBe(2);
    const parsed = parseTokenAccount(data);
    expect(parsed.ok && parsed.error === null).toBe(true);
    if (parsed.ok) expect(parsed.extensions.map((e) => e.extension)).toEqual(SAMPLES.map((s) => s.extension));
  });

  it('decodes a hand-built TransferFeeConfig TLV entry', () => {
    const value = new Uint8Array(108);
    value.set(addressToBytes(A), 0); // fee config authority; withdraw authority left zero = None
    const dv = new DataView(value.buffer);
    dv.setBigUint64(64, 5n, true); // withheld
    dv.setBigUint64(72, 10n, true); // older.epoch
    dv.setBigUint64(80, 1000n, true); // older.maximumFee
    dv.setUint16(88, 100, true); // older.bps
    dv.setBigUint64(90, 11n, true); // newer.epoch
    dv.setBigUint64(98, 2000n, true);
    dv.setUint16(106, 9000, true);
    const tlv = new Uint8Array([1, 0, 108, 0, ...value]);
    const { extensions, error } = parseTlvEntries(tlv);
    expect(error).toBeNull();
    expect(extensions.map(toUiExtension)).toEqual([
      {
        extension: 'transferFeeConfig',
        state: {
          transferFeeConfigAuthority: A,
          withdrawWithheldAuthority: null,
          withheldAmount: 5,
          olderTransferFee: { epoch: 10, maximumFee: 1000, transferFeeBasisPoints: 100 },
          newerTransferFee: { epoch: 11, maximumFee: 2000, transferFeeBasisPoints: 9000 },
        },
      },
    ]);
  });

  it('pads to 357 bytes where the account would be multisig-sized (355)', () => {
    const exts: KnownExtensionInput[] = [
      SAMPLES[0]!,
      { extension: 'pausableConfig', state: { authority: A, paused: false } },
      { extension: 'permanentDelegate', state: { delegate: A } },
      { extension: 'nonTransferable', state: {} },
    ];
    expect(166 + encodeTlvEntries(exts).length).toBe(355);
    const data = encodeMintAccount(MINT, exts);
    expect(data.length).toBe(357);
    const parsed = parseMintAccount(data);
    expect(parsed.ok && parsed.error === null && parsed.extensions.length === 4).toBe(true);
  });

  it('findExtension returns the typed state', () => {
    const parsed = parseMintAccount(encodeMintAccount(MINT, [SAMPLES[5]!, SAMPLES[11]!]));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(findExtension(parsed.extensions, 'permanentDelegate')?.state.delegate).toBe(C);
    expect(findExtension(parsed.extensions, 'defaultAccountState')?.state.accountState).toBe('frozen');
    expect(findExtension(parsed.extensions, 'transferHook')).toBeUndefined();
  });
});

describe('jsonParsed shape (Agave UiExtension)', () => {
  it('prints markers without state, u64 as numbers, scaled multipliers as strings', () => {
    const parsed = parseMintAccount(encodeMintAccount(MINT, [SAMPLES[8]!, SAMPLES[24]!, SAMPLES[1]!]));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.extensions.map(toUiExtension)).toEqual([
      { extension: 'nonTransferable' },
      { extension: 'scaledUiAmountConfig', state: { authority: A, multiplier: '1.5', newMultiplierEffectiveTimestamp: 1_800_000_000, newMultiplier: '2' } },
      { extension: 'transferFeeAmount', state: { withheldAmount: 42 } },
    ]);
  });

  it('prints token metadata pairs as arrays', () => {
    const ext = parseTlvEntries(encodeTlvEntries([SAMPLES[18]!])).extensions[0]!;
    expect(toUiExtension(ext)).toMatchObject({
      extension: 'tokenMetadata',
      state: {
        additionalMetadata: [
          ['k1', 'v1'],
          ['ключ', 'значение'],
        ],
      },
    });
  });
});

describe('malformed data', () => {
  it('keeps unknown types raw and continues', () => {
    const tlv = encodeTlvEntries([{ typeId: 999, raw: new Uint8Array([1, 2, 3]) }, SAMPLES[11]!]);
    const { extensions, error } = parseTlvEntries(tlv);
    expect(error).toBeNull();
    expect(extensions[0]).toEqual({ typeId: 999, extension: 'unparseableExtension', raw: new Uint8Array([1, 2, 3]), reason: 'unknown extension type' });
    expect(extensions[1]?.extension).toBe('permanentDelegate');
    expect(toUiExtension(extensions[0]!)).toEqual({ extension: 'unparseableExtension' });
  });

  it('marks a known type with the wrong length unparseable', () => {
    const { extensions } = parseTlvEntries(encodeTlvEntries([{ typeId: 12, raw: new Uint8Array(31) }]));
    expect(extensions[0]).toMatchObject({ typeId: 12, extension: 'unparseableExtension', reason: 'length 31, expected 32' });
  });

  it('reports a value overrunning the data with the entries before it', () => {
    const good = encodeTlvEntries([SAMPLES[11]!]);
    const bad = new Uint8Array([...good, 3, 0, 32, 0, 1, 2]);
    const { extensions, error } = parseTlvEntries(bad);
    expect(extensions).toHaveLength(1);
    expect(error).toMatch(/overruns/);
  });

  it('stops at an Uninitialized entry and at a 1-byte tail', () => {
    expect(parseTlvEntries(new Uint8Array([0, 0, 5, 0, 9, 9])).extensions).toEqual([]);
    expect(parseTlvEntries(new Uint8Array([7])).error).toBeNull();
    expect(parseTlvEntries(new Uint8Array([7, 0, 1])).error).toMatch(/truncated/);
  });

  it('rejects impossible lengths and account-type bytes', () => {
    expect(parseToken2022Extensions(new Uint8Array(100)).error).toMatch(/not a mint or token account/);
    expect(parseToken2022Extensions(new Uint8Array(355)).error).toMatch(/multisig/);
    const data = encodeMintAccount(MINT, [SAMPLES[8]!]);
    data[165] = 9;
    expect(parseToken2022Extensions(data)).toMatchObject({ accountType: null, error: 'invalid account type byte 9' });
  });

  it('handles bad UTF-8 and absurd counts in token metadata', () => {
    const meta = encodeTlvEntries([SAMPLES[18]!]);
    const badUtf8 = meta.slice();
    badUtf8[4 + 64 + 4] = 0xff; // first byte of the name
    expect(parseTlvEntries(badUtf8).extensions[0]?.extension).toBe('unparseableExtension');
    const value = encodeTlvEntries([{ extension: 'tokenMetadata', state: { ...(SAMPLES[18]!.state as object), additionalMetadata: [] } as never }]);
    new DataView(value.buffer).setUint32(value.length - 4, 0xffffffff, true);
    expect(parseTlvEntries(value).extensions[0]).toMatchObject({ extension: 'unparseableExtension' });
  });

  it('never throws on random garbage of any length', () => {
    const rand = prng(42);
    const lengths = [0, 1, 81, 82, 83, 164, 165, 166, 167, 170, 355, 400, 1000];
    for (let i = 0; i < 3000; i += 1) {
      const len = i < lengths.length ? lengths[i]! : Math.floor(rand() * 600);
      const data = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256));
      if (len > 165 && rand() < 0.5) data[165] = 1 + Math.floor(rand() * 2);
      expect(() => {
        parseToken2022Extensions(data);
        const m = parseMintAccount(data);
        const a = parseTokenAccount(data);
        if (m.ok) m.extensions.map(toUiExtension);
        if (a.ok) a.extensions.map(toUiExtension);
      }).not.toThrow();
    }
  });

  it('address helpers agree with each other', () => {
    expect(bytesToAddress(addressToBytes(C))).toBe(C);
    expect(() => addressToBytes('abc')).toThrow();
  });
});
