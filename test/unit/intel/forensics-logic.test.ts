/**
 * Pure logic of the forensics group: wallet bands and age, balance-change derivation, program
 * naming, the caller-transaction decoder of /v1/simulate and the pretrade checklist.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { landedTransactionOf, type LandedTransaction } from '../../../src/chain/solana/landed-transaction.ts';
import type { SignatureEntry } from '../../../src/chain/solana/rpc-forensics-methods.ts';
import { ServiceError } from '../../../src/errors.ts';
import { buildSignedWire, computeBudgetIxs, signerFromSeed, transferSolIx } from '@solana-x402-intel/localnet';
import { nameProgram, namePrograms, WELL_KNOWN_PROGRAMS } from '../../../src/intel/forensics/program-names.ts';
import { pretradeChecklist, riskyExtensions } from '../../../src/intel/forensics/pretrade-checklist.ts';
import { decodeSimulationInput, refusedAsMalformed, simulationAnswer, simulationFailure } from '../../../src/intel/forensics/simulate-tx.ts';
import { programsInvoked, solBalanceChanges, tokenBalanceChanges, txInspectAnswer } from '../../../src/intel/forensics/tx-summary.ts';
import { formatSol, walletAge, walletBand, walletProfile, WALLET_BANDS } from '../../../src/intel/forensics/wallet-profile.ts';

const A = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const CB = 'ComputeBudget111111111111111111111111111111';
const TIP = '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5';
const PAYER = signerFromSeed(new Uint8Array(32).fill(7));
const PEER = signerFromSeed(new Uint8Array(32).fill(9)).address;
const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';

const sig = (n: number, blockTime: number | null): SignatureEntry => ({ signature: `s${n}`, slot: 1000 - n, blockTime, failed: false });

describe('wallet band', () => {
  it('empty needs zero lamports and no token accounts, whatever the history', () => {
    expect(walletBand(0n, 0, 0)).toBe('empty');
    expect(walletBand(0n, 0, 200)).toBe('empty');
    expect(walletBand(0n, 1, 0)).toBe('fresh');
    expect(walletBand(1n, 0, 0)).toBe('fresh');
  });
  it('bands by signatures at the stated thresholds', () => {
    expect(walletBand(1n, 0, WALLET_BANDS.activeMinSignatures - 1)).toBe('fresh');
    expect(walletBand(1n, 0, WALLET_BANDS.activeMinSignatures)).toBe('active');
    expect(walletBand(1n, 0, WALLET_BANDS.heavyMinSignatures - 1)).toBe('active');
    expect(walletBand(1n, 0, WALLET_BANDS.heavyMinSignatures)).toBe('heavy');
  });
});

describe('SOL text', () => {
  it('is exact decimal without exponent notation', () => {
    expect(formatSol(1n)).toBe('0.000000001');
    expect(formatSol(0n)).toBe('0');
    expect(formatSol(1_500_000_000n)).toBe('1.5');
    expect(formatSol(200_000_000_000n)).toBe('200');
  });
});

describe('wallet age', () => {
  it('is exact when the history fits the window', () => {
    const age = walletAge([sig(0, 2000), sig(1, 1500), sig(2, 1000)], 1000, 1000 + 86_400);
    expect(age).toMatchObject({ firstSeenUnix: 1000, seconds: 86_400, days: 1, basis: 'exact' });
  });
  it('is a lower bound when the window is full', () => {
    const sigs = [sig(0, 2000), sig(1, 1000)];
    expect(walletAge(sigs, 2, 3000)).toMatchObject({ firstSeenUnix: 1000, basis: 'lower-bound' });
  });
  it('is a lower bound when the oldest signature has no block time', () => {
    expect(walletAge([sig(0, 2000), sig(1, 1500), sig(2, null)], 1000, 3000)).toMatchObject({ firstSeenUnix: 1500, basis: 'lower-bound' });
  });
  it('is unknown without a dated signature', () => {
    expect(walletAge([], 1000, 3000)).toBe('unknown');
    expect(walletAge([sig(0, null)], 1000, 3000)).toBe('unknown');
  });
  it('the profile states its rule and says "at least" for a full window', () => {
    const body = walletProfile({
      address: PEER,
      lamports: 1_500_000_000n,
      accountOwner: A,
      executable: false,
      signatures: [sig(0, 10), sig(1, 5)],
      tokenAccounts: [{ address: PEER, programId: TOKEN, mint: PEER, amount: '5', decimals: 0 }],
      windowLimit: 2,
      nowUnix: 100,
    }) as { profile: { band: string; summary: string }; solBalance: number; tokens: { splTokenAccounts: number; token2022Accounts: number } };
    expect(body.profile.band).toBe('fresh');
    expect(body.solBalance).toBe(1.5);
    expect(body.profile.summary).toContain('at least 2 signatures, 1.5 SOL, 1 token accounts');
    expect(body.profile.summary).toContain('heavy >= 50');
    expect(body.profile.summary).toContain('lower bound');
    expect(body.tokens).toMatchObject({ splTokenAccounts: 1, token2022Accounts: 0 });
  });
});

function landed(overrides: Partial<LandedTransaction> = {}): LandedTransaction {
  return {
    signature: 'x',
    slot: 5,
    blockTime: 1_700_000_000,
    version: 'legacy',
    accountKeys: [PAYER.address, PEER, TIP, 'acctA', 'acctB', A, TOKEN, CB],
    signerCount: 1,
    err: null,
    feeLamports: 5000n,
    computeUnitsConsumed: 450,
    preBalances: [10_000_000n, 0n, 100n, 2n, 2n, 1n, 1n, 1n],
    postBalances: [8_994_000n, 1_000_000n, 1100n, 2n, 2n, 1n, 1n, 1n],
    preTokenBalances: [{ accountIndex: 3, mint: 'M', owner: PAYER.address, programId: TOKEN, amount: '500', decimals: 2 }],
    postTokenBalances: [
      { accountIndex: 3, mint: 'M', owner: PAYER.address, programId: TOKEN, amount: '200', decimals: 2 },
      { accountIndex: 4, mint: 'M', owner: PEER, programId: TOKEN, amount: '300', decimals: 2 },
    ],
    instructions: [
      { programIdIndex: 7, outerIndex: null },
      { programIdIndex: 5, outerIndex: null },
      { programIdIndex: 6, outerIndex: null },
      { programIdIndex: 5, outerIndex: 2 },
    ],
    logs: [],
    ...overrides,
  };
}

describe('transaction summary', () => {
  it('derives SOL changes of moved accounts only, with fee payer and tip flags', () => {
    const changes = solBalanceChanges(landed());
    expect(changes.map((c) => [c.account, c.changeLamports])).toEqual([
      [PAYER.address, '-1006000'],
      [PEER, '1000000'],
      [TIP, '1000'],
    ]);
    expect(changes[0]).toMatchObject({ feePayer: true, signer: true, changeSol: -0.001006 });
    expect(changes[2]).toMatchObject({ jitoTipAccount: true, feePayer: false });
    expect(txInspectAnswer(landed())).toMatchObject({
      success: true,
      feeSol: 0.000005,
      computeUnitsConsumed: 450,
      jitoTip: { lamports: '1000', accounts: [TIP] },
    });
  });
  it('derives token changes by account index, a missing side counting as zero', () => {
    const keys = landed().accountKeys;
    const changes = tokenBalanceChanges(keys, landed().preTokenBalances, landed().postTokenBalances);
    expect(changes).toEqual([
      expect.objectContaining({ account: 'acctA', preAmount: '500', postAmount: '200', change: '-300', uiChange: -3 }),
      expect.objectContaining({ account: 'acctB', preAmount: '0', postAmount: '300', change: '300', uiChange: 3, owner: PEER }),
    ]);
    const closed = tokenBalanceChanges(keys, [{ accountIndex: 4, mint: 'M', owner: null, programId: null, amount: '7', decimals: 0 }], []);
    expect(closed[0]).toMatchObject({ preAmount: '7', postAmount: '0', change: '-7', owner: 'unknown', programId: 'unknown' });
    expect(tokenBalanceChanges(keys, landed().postTokenBalances, landed().postTokenBalances)).toEqual([]);
  });
  it('names programs with outer and inner counts in first-invocation order', () => {
    expect(programsInvoked(landed())).toEqual([
      { name: 'Compute Budget', programId: CB, known: true, outerInstructions: 1, innerInstructions: 0 },
      { name: 'System Program', programId: A, known: true, outerInstructions: 1, innerInstructions: 1 },
      { name: 'SPL Token', programId: TOKEN, known: true, outerInstructions: 1, innerInstructions: 0 },
    ]);
  });
  it('a failed transaction, unknown compute units and block time are stated as such', () => {
    const out = txInspectAnswer(landed({ err: { InstructionError: [0, { Custom: 1 }] }, computeUnitsConsumed: null, blockTime: null }));
    expect(out).toMatchObject({ success: false, computeUnitsConsumed: 'unknown', blockTime: 'unknown', blockTimeIso: 'unknown' });
  });
});

describe('getTransaction decoding', () => {
  it('orders account keys static, loaded writable, loaded readonly and keeps inner instructions with their outer index', () => {
    const raw = {
      slot: 9n,
      blockTime: 1_700_000_000n,
      version: 0 as const,
      transaction: {
        signatures: ['x'],
        message: { accountKeys: [PAYER.address, A], header: { numRequiredSignatures: 1 }, instructions: [{ programIdIndex: 1 }] },
      },
      meta: {
        err: { InstructionError: [0, { Custom: 6001n }] },
        fee: 5000n,
        computeUnitsConsumed: 1200n,
        preBalances: [10n, 1n, 5n, 7n],
        postBalances: [5n, 1n, 10n, 7n],
        preTokenBalances: [],
        postTokenBalances: [{ accountIndex: 2, mint: 'M', uiTokenAmount: { amount: '4', decimals: 0 } }],
        logMessages: null,
        innerInstructions: [{ index: 0, instructions: [{ programIdIndex: 3 }] }],
        loadedAddresses: { writable: ['W'], readonly: [TOKEN] },
      },
    };
    const tx = landedTransactionOf('x', raw as never);
    expect(tx.accountKeys).toEqual([PAYER.address, A, 'W', TOKEN]);
    expect(tx).toMatchObject({ slot: 9, blockTime: 1_700_000_000, version: 0, feeLamports: 5000n, computeUnitsConsumed: 1200, logs: null });
    expect(tx.err).toEqual({ InstructionError: [0, { Custom: 6001 }] });
    expect(tx.postTokenBalances[0]).toMatchObject({ owner: null, programId: null, amount: '4' });
    expect(programsInvoked(tx).map((p) => [p.name, p.outerInstructions, p.innerInstructions])).toEqual([
      ['System Program', 1, 0],
      ['SPL Token', 0, 1],
    ]);
    expect(solBalanceChanges(tx).map((c) => c.account)).toEqual([PAYER.address, 'W']);
    expect(txInspectAnswer(tx)).toMatchObject({
      success: false,
      logMessageCount: 'unknown',
      tokenBalanceChanges: [expect.objectContaining({ account: 'W', change: '4', owner: 'unknown' })],
    });
  });
});

describe('program naming', () => {
  it('names well-known ids and leaves others unknown', () => {
    expect(nameProgram('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4').name).toBe('Jupiter Aggregator v6');
    expect(nameProgram('whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc').name).toBe('Orca Whirlpool');
    expect(nameProgram(PEER)).toEqual({ name: 'unknown', programId: PEER, known: false });
    expect(nameProgram('constructor').name).toBe('unknown');
    expect(namePrograms([A, A, TOKEN]).map((p) => p.name)).toEqual(['System Program', 'SPL Token']);
  });
  it('every table key is a base58 address of 32 bytes', async () => {
    const { decodeBase58 } = await import('../../../src/chain/solana/base58.ts');
    for (const id of Object.keys(WELL_KNOWN_PROGRAMS)) expect(decodeBase58(id)?.length, id).toBe(32);
  });
});

describe('simulate input', () => {
  const wire = buildSignedWire(PAYER, [...computeBudgetIxs(1000, 5n), transferSolIx(PAYER.address, PEER, 1000n)], BLOCKHASH).wire;
  const b64 = Buffer.from(wire).toString('base64');
  const code = (f: () => unknown) => {
    try {
      f();
      return 'ok';
    } catch (e) {
      return e instanceof ServiceError ? `${e.code}:${e.status}` : 'other';
    }
  };

  it('decodes a valid transaction and counts its accounts', () => {
    const input = decodeSimulationInput(b64);
    const out = simulationAnswer(input, { ok: true, err: null, logs: ['l'], unitsConsumed: 450, innerProgramIds: [] });
    expect(out).toMatchObject({
      willSucceed: true,
      unitsConsumed: 450,
      accountsTouched: 4,
      signaturesPresent: 1,
      accounts: { static: 4, signers: 1, writableStatic: 2, feePayer: PAYER.address },
    });
    expect((out.programsInvoked as { name: string }[]).map((p) => p.name)).toEqual(['Compute Budget', 'System Program']);
  });
  it('counts accounts named by address-table lookups in a v0 transaction', () => {
    const table = address(signerFromSeed(new Uint8Array(32).fill(11)).address);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(PAYER.address), m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
      (m) => appendTransactionMessageInstructions([transferSolIx(PAYER.address, PEER, 5n)], m),
    );
    const compressed = compressTransactionMessageUsingAddressLookupTables(message, { [table]: [address(PEER)] });
    const input = decodeSimulationInput(getBase64EncodedWireTransaction(compileTransaction(compressed)));
    expect(input.version).toBe(0);
    expect(input.lookupAccounts).toBe(1);
    const out = simulationAnswer(input, { ok: true, err: null, logs: [], unitsConsumed: null, innerProgramIds: [] });
    expect(out).toMatchObject({ accountsTouched: 3, accounts: { static: 2, fromLookupTables: 1 }, signaturesPresent: 0, unitsConsumed: 'unknown' });
  });
  it('refuses bad base64, truncated and garbage bytes with 400 invalid_transaction', () => {
    expect(code(() => decodeSimulationInput('not base64!'))).toBe('invalid_transaction:400');
    expect(code(() => decodeSimulationInput('QUJD'))).toBe('invalid_transaction:400');
    expect(code(() => decodeSimulationInput(Buffer.from(wire.subarray(0, wire.length - 3)).toString('base64')))).toBe('invalid_transaction:400');
    expect(code(() => decodeSimulationInput(Buffer.from(new Uint8Array(200).fill(0xff)).toString('base64')))).toBe('invalid_transaction:400');
    expect(code(() => decodeSimulationInput(Buffer.concat([wire, Buffer.from([1, 2])]).toString('base64')))).toBe('invalid_transaction:400');
  });
  it('a SanitizeFailure from the node is a malformed transaction (400); other errors are outcomes', () => {
    const outcome = (err: unknown) => ({ ok: true as const, err, logs: [], unitsConsumed: 0, innerProgramIds: [] });
    expect(refusedAsMalformed(outcome('SanitizeFailure'))?.status).toBe(400);
    expect(refusedAsMalformed(outcome({ InstructionError: [0, { Custom: 1 }] }))).toBeNull();
    expect(refusedAsMalformed(outcome(null))).toBeNull();
  });
  it('maps node refusals to 400 and other RPC errors to 502', () => {
    expect(simulationFailure({ ok: false, code: -32602, message: 'invalid transaction' }).status).toBe(400);
    expect(simulationFailure({ ok: false, code: -32003, message: 'sig' }).status).toBe(400);
    expect(simulationFailure({ ok: false, code: -32005, message: 'node unhealthy' }).status).toBe(502);
  });
});

describe('pretrade checklist', () => {
  const mint = { mintAuthority: null, supply: 10n, decimals: 0, isInitialized: true, freezeAuthority: PEER };
  it('states each check with its observed value; missing inputs are unknown', () => {
    const rows = pretradeChecklist({ mint, extensions: [], top10Pct: null, largestHolderBand: null });
    expect(rows.map((r) => r.observed)).toEqual([true, false, 'unknown', true, 'unknown']);
    expect(rows[2]?.check).toContain('50%');
    const known = pretradeChecklist({ mint, extensions: [], top10Pct: 49.9, largestHolderBand: 'fresh' });
    expect(known.map((r) => r.observed)).toEqual([true, false, true, true, false]);
  });
  it('counts risky Token-2022 extensions only when their condition holds', () => {
    expect(
      riskyExtensions([
        { typeId: 12, extension: 'permanentDelegate', state: { delegate: null } },
        { typeId: 6, extension: 'defaultAccountState', state: { accountState: 'initialized' } },
        { typeId: 14, extension: 'transferHook', state: { authority: null, programId: PEER } },
        { typeId: 9, extension: 'nonTransferable', state: {} },
      ] as never),
    ).toEqual(['transferHook', 'nonTransferable']);
  });
});
