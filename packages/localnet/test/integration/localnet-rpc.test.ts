import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, generateKeyPairSigner, type Address, type Base64EncodedWireTransaction, type KeyPairSigner, type Signature } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { encodeMintAccount } from '../../src/encoding/token-accounts.ts';
import { TOKEN_2022_PROGRAM_ID } from '../../src/encoding/token-layout.ts';
import { fundedSigner, rawPost, signedBase64, startHarness, waitFor, type Harness } from './localnet-rpc-harness.ts';

let h: Harness;
let payer: KeyPairSigner;
let alice: KeyPairSigner;
let mint: KeyPairSigner;
let payerAta: Address;
let aliceAta: Address;
let transferSig: Signature;
const CU_PRICE = 12_345n;

async function send(signer: KeyPairSigner, ixs: Parameters<typeof signedBase64>[2]): Promise<Signature> {
  const wire = await signedBase64(h, signer, ixs);
  const sig = await h.rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
  await waitFor(h, sig);
  return sig;
}

beforeAll(async () => {
  h = await startHarness();
  payer = await fundedSigner(h);
  alice = await generateKeyPairSigner();
  mint = await generateKeyPairSigner();
  const rent = await h.rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
  await send(payer, [
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address, freezeAuthority: null }),
  ]);
  [payerAta] = await findAssociatedTokenPda({ owner: payer.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  [aliceAta] = await findAssociatedTokenPda({ owner: alice.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await send(payer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: payerAta, owner: payer.address, mint: mint.address }),
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: aliceAta, owner: alice.address, mint: mint.address }),
    getMintToCheckedInstruction({ mint: mint.address, token: payerAta, mintAuthority: payer, amount: 1_000_000_000n, decimals: 6 }),
  ]);
  transferSig = await send(payer, [
    getSetComputeUnitPriceInstruction({ microLamports: CU_PRICE }),
    getTransferCheckedInstruction({ source: payerAta, mint: mint.address, destination: aliceAta, authority: payer, amount: 250_000_000n, decimals: 6 }),
  ]);
  await waitFor(h, transferSig, 'finalized');
});

afterAll(async () => {
  await h?.stop();
});

describe('localnet RPC: cluster state', () => {
  it('answers slots, heights, epochs, blockhashes, health and version', async () => {
    const [processed, finalized] = [await h.rpc.getSlot({ commitment: 'processed' }).send(), await h.rpc.getSlot({ commitment: 'finalized' }).send()];
    expect(processed - finalized).toBeGreaterThanOrEqual(1n);
    expect(await h.rpc.getBlockHeight({ commitment: 'processed' }).send()).toBeGreaterThan(0n);
    const epoch = await h.rpc.getEpochInfo({ commitment: 'processed' }).send();
    expect(epoch.slotsInEpoch).toBe(32n);
    expect(epoch.epoch * 32n + epoch.slotIndex).toBe(epoch.absoluteSlot);
    expect(epoch.transactionCount).toBeGreaterThan(0n);
    expect(await h.rpc.getEpochSchedule().send()).toEqual({
      slotsPerEpoch: 32n,
      leaderScheduleSlotOffset: 32n,
      warmup: false,
      firstNormalEpoch: 0n,
      firstNormalSlot: 0n,
    });
    const latest = await h.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    expect(latest.context.slot).toBeGreaterThan(0n);
    expect(latest.value.lastValidBlockHeight).toBeGreaterThan(150n);
    expect((await h.rpc.isBlockhashValid(latest.value.blockhash, { commitment: 'processed' }).send()).value).toBe(true);
    expect((await h.rpc.isBlockhashValid('4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM' as never).send()).value).toBe(false);
    expect(await h.rpc.getHealth().send()).toBe('ok');
    expect((await h.rpc.getVersion().send())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(typeof (await h.rpc.getGenesisHash().send())).toBe('string');
  });
});

describe('localnet RPC: accounts and tokens', () => {
  it('getAccountInfo base64 and jsonParsed for an SPL mint and token account', async () => {
    const raw = await h.rpc.getAccountInfo(mint.address, { encoding: 'base64' }).send();
    expect(raw.value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(raw.value?.space).toBe(82n);
    const parsedMint = await h.rpc.getAccountInfo(mint.address, { encoding: 'jsonParsed' }).send();
    expect(parsedMint.value?.data).toEqual({
      program: 'spl-token',
      space: 82n,
      parsed: { type: 'mint', info: { mintAuthority: payer.address, supply: '1000000000', decimals: 6, isInitialized: true, freezeAuthority: null } },
    });
    const parsedAta = await h.rpc.getAccountInfo(aliceAta, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
    expect(parsedAta.value?.data).toMatchObject({
      program: 'spl-token',
      space: 165n,
      parsed: {
        type: 'account',
        info: {
          mint: mint.address,
          owner: alice.address,
          state: 'initialized',
          isNative: false,
          tokenAmount: { amount: '250000000', decimals: 6, uiAmount: 250, uiAmountString: '250' },
        },
      },
    });
    expect((await h.rpc.getAccountInfo(alice.address).send()).value).toBeNull();
    // No encoding: Agave's legacy binary (bare base58 string), refused above 128 bytes.
    expect(typeof (await h.rpc.getAccountInfo(mint.address).send()).value?.data).toBe('string');
    await expect(h.rpc.getAccountInfo(aliceAta).send()).rejects.toMatchObject({ context: { __code: -32600 } });
  });

  it('renders Token-2022 mints with extensions', async () => {
    const t22 = await generateKeyPairSigner();
    const data = encodeMintAccount({ mintAuthority: payer.address, supply: 5n, decimals: 2, isInitialized: true, freezeAuthority: null }, [
      { extension: 'mintCloseAuthority', state: { closeAuthority: payer.address } },
    ]);
    h.chain.setAccount(t22.address, { lamports: 10_000_000n, data, owner: TOKEN_2022_PROGRAM_ID });
    const { value } = await h.rpc.getAccountInfo(t22.address, { encoding: 'jsonParsed' }).send();
    expect(value?.data).toMatchObject({
      program: 'spl-token-2022',
      parsed: { type: 'mint', info: { decimals: 2, supply: '5', extensions: [{ extension: 'mintCloseAuthority', state: { closeAuthority: payer.address } }] } },
    });
  });

  it('getMultipleAccounts, getBalance, getTokenSupply, getTokenLargestAccounts', async () => {
    const multi = await h.rpc.getMultipleAccounts([payer.address, alice.address, aliceAta], { encoding: 'base64' }).send();
    expect(multi.value.map((a) => a === null)).toEqual([false, true, false]);
    const balance = await h.rpc.getBalance(payer.address, { commitment: 'processed' }).send();
    expect(balance.value).toBe(multi.value[0]!.lamports);
    const supply = await h.rpc.getTokenSupply(mint.address).send();
    expect(supply.value).toEqual({ amount: '1000000000', decimals: 6, uiAmount: 1000, uiAmountString: '1000' });
    const largest = await h.rpc.getTokenLargestAccounts(mint.address).send();
    expect(largest.value.map((r) => [r.address, r.amount])).toEqual([
      [payerAta, '750000000'],
      [aliceAta, '250000000'],
    ]);
    await expect(h.rpc.getTokenLargestAccounts(address(h.excludedMint)).send()).rejects.toMatchObject({ context: { __code: -32010 } });
  });

  it('getTokenAccountsByOwner with mint and programId filters', async () => {
    const byMint = await h.rpc.getTokenAccountsByOwner(alice.address, { mint: mint.address }, { encoding: 'jsonParsed' }).send();
    expect(byMint.value.map((r) => r.pubkey)).toEqual([aliceAta]);
    const byProgram = await h.rpc.getTokenAccountsByOwner(payer.address, { programId: TOKEN_PROGRAM_ADDRESS }, { encoding: 'base64' }).send();
    expect(byProgram.value.map((r) => r.pubkey)).toEqual([payerAta]);
    expect((await h.rpc.getTokenAccountsByOwner(alice.address, { programId: address(TOKEN_2022_PROGRAM_ID) }, { encoding: 'base64' }).send()).value).toEqual(
      [],
    );
  });

  it('getProgramAccounts with dataSize and memcmp filters', async () => {
    const rows = await h.rpc
      .getProgramAccounts(TOKEN_PROGRAM_ADDRESS, {
        encoding: 'base64',
        filters: [{ dataSize: 165n }, { memcmp: { offset: 32n, bytes: alice.address as never, encoding: 'base58' } }],
      })
      .send();
    expect(rows.map((r) => r.pubkey)).toEqual([aliceAta]);
    const withContext = await h.rpc
      .getProgramAccounts(TOKEN_PROGRAM_ADDRESS, {
        encoding: 'base64',
        withContext: true,
        filters: [{ memcmp: { offset: 0n, bytes: Buffer.from(new Uint8Array(32)).toString('base64') as never, encoding: 'base64' } }],
      })
      .send();
    expect(withContext.value).toEqual([]);
  });
});

describe('localnet RPC: transactions', () => {
  it('getTransaction json: meta with fee, balances, token balances, logs, CU', async () => {
    const tx = await h.rpc.getTransaction(transferSig, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
    if (!tx) throw new Error('transaction not found');
    expect(tx.version).toBe(0);
    expect(tx.meta?.err).toBeNull();
    expect(tx.meta?.status).toEqual({ Ok: null });
    // 1 signature + ceil(12345 µL * (3000 + 200000) CU / 1e6) = 5000 + 2507
    expect(tx.meta?.fee).toBe(5000n + 2507n);
    expect(tx.meta!.preBalances[0]! - tx.meta!.postBalances[0]!).toBe(tx.meta!.fee);
    expect(tx.meta?.computeUnitsConsumed).toBeGreaterThan(0n);
    expect(tx.meta?.logMessages).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} success`);
    const keys = tx.transaction.message.accountKeys;
    const pre = tx.meta!.preTokenBalances!.find((b) => keys[b.accountIndex] === aliceAta);
    const post = tx.meta!.postTokenBalances!.find((b) => keys[b.accountIndex] === aliceAta);
    expect(pre?.uiTokenAmount.amount).toBe('0');
    expect(post).toMatchObject({
      mint: mint.address,
      owner: alice.address,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount: '250000000', decimals: 6, uiAmountString: '250' },
    });
    expect(tx.blockTime).toBeGreaterThan(1_750_000_000n);
  });

  it('getTransaction jsonParsed shows parsed instructions and inner instructions', async () => {
    const [sig] = (await h.rpc.getSignaturesForAddress(aliceAta, { commitment: 'confirmed' }).send()).slice(-1);
    const tx = await h.rpc.getTransaction(sig!.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
    const ixs = tx!.transaction.message.instructions as unknown as { program?: string; parsed?: { type: string } }[];
    expect(ixs.map((i) => i.parsed?.type)).toEqual(['createIdempotent', 'createIdempotent', 'mintToChecked']);
    const inner = tx!.meta!.innerInstructions![0]!.instructions as unknown as { parsed?: { type: string }; stackHeight: number }[];
    expect(inner.map((i) => i.parsed?.type)).toContain('initializeAccount3');
    expect(inner[0]!.stackHeight).toBe(2);
    const keys = tx!.transaction.message.accountKeys as unknown as { pubkey: string; signer: boolean; writable: boolean; source: string }[];
    expect(keys[0]).toEqual({ pubkey: payer.address, signer: true, writable: true, source: 'transaction' });
  });

  it('refuses v0 transactions without maxSupportedTransactionVersion and processed commitment', async () => {
    await expect(h.rpc.getTransaction(transferSig, { encoding: 'json' }).send()).rejects.toMatchObject({ context: { __code: -32015 } });
    await expect(h.rpc.getTransaction(transferSig, { commitment: 'processed', maxSupportedTransactionVersion: 0 } as never).send()).rejects.toMatchObject({
      context: { __code: -32602 },
    });
  });

  it('getSignaturesForAddress with limit, before and until', async () => {
    const all = await h.rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed' }).send();
    expect(all.length).toBe(4);
    expect(all[0]!.signature).toBe(transferSig);
    expect(all[0]).toMatchObject({ err: null, memo: null, confirmationStatus: 'finalized' });
    expect(all.map((e) => e.slot)).toEqual([...all.map((e) => e.slot)].sort((a, b) => Number(b - a)));
    const page = await h.rpc.getSignaturesForAddress(payer.address, { limit: 2, before: all[0]!.signature, commitment: 'confirmed' }).send();
    expect(page.map((e) => e.signature)).toEqual([all[1]!.signature, all[2]!.signature]);
    const until = await h.rpc.getSignaturesForAddress(payer.address, { until: all[2]!.signature, commitment: 'confirmed' }).send();
    expect(until.map((e) => e.signature)).toEqual([all[0]!.signature, all[1]!.signature]);
  });

  it('getSignatureStatuses reports commitment and unknown signatures as null', async () => {
    const unknown = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW' as Signature;
    const { value } = await h.rpc.getSignatureStatuses([transferSig, unknown], { searchTransactionHistory: true }).send();
    expect(value[0]).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, err: null });
    expect(value[1]).toBeNull();
  });

  it('getRecentPrioritizationFees reflects compute unit prices of landed transactions', async () => {
    const global = await h.rpc.getRecentPrioritizationFees().send();
    expect(global.length).toBeGreaterThan(0);
    const scoped = await h.rpc.getRecentPrioritizationFees([aliceAta]).send();
    expect(scoped.map((r) => r.prioritizationFee)).toContain(CU_PRICE);
    expect(global.map((r) => r.prioritizationFee)).toContain(CU_PRICE);
  });

  it('simulateTransaction: success with post-simulation accounts, failure with logs', async () => {
    const bob = await generateKeyPairSigner();
    const ok = await signedBase64(h, payer, [getTransferSolInstruction({ source: payer, destination: bob.address, amount: 2_000_000_000n })]);
    const sim = await h.rpc
      .simulateTransaction(ok as Base64EncodedWireTransaction, {
        encoding: 'base64',
        sigVerify: true,
        accounts: { addresses: [bob.address], encoding: 'base64' },
      })
      .send();
    expect(sim.value.err).toBeNull();
    expect(sim.value.unitsConsumed).toBeGreaterThan(0n);
    expect(sim.value.logs?.[0]).toContain('invoke [1]');
    expect(sim.value.accounts?.[0]?.lamports).toBe(2_000_000_000n);
    expect((await h.rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value).toBe(0n);
    const bad = await signedBase64(h, payer, [getTransferSolInstruction({ source: payer, destination: bob.address, amount: 10n ** 17n })]);
    const failed = await h.rpc.simulateTransaction(bad as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    expect(failed.value.err).toEqual({ InstructionError: [0n, { Custom: 1n }] }); // kit turns JSON numbers into bigints
    expect(failed.value.logs?.join('\n')).toContain('insufficient lamports');
  });

  it('simulateTransaction: replaceRecentBlockhash, sigVerify failure', async () => {
    const bob = await generateKeyPairSigner();
    const wire = await signedBase64(h, payer, [getTransferSolInstruction({ source: payer, destination: bob.address, amount: 1_000_000_000n })]);
    const bytes = Buffer.from(wire, 'base64');
    bytes[10] = bytes[10]! ^ 0xff; // corrupt the signature
    const forged = bytes.toString('base64') as Base64EncodedWireTransaction;
    await expect(h.rpc.simulateTransaction(forged, { encoding: 'base64', sigVerify: true }).send()).rejects.toMatchObject({ context: { __code: -32003 } });
    const replaced = await h.rpc.simulateTransaction(forged, { encoding: 'base64', replaceRecentBlockhash: true }).send();
    expect(replaced.value.err).toBeNull();
    expect(replaced.value.replacementBlockhash?.blockhash).toBeTypeOf('string');
    await expect(
      h.rpc.simulateTransaction(forged, { encoding: 'base64', replaceRecentBlockhash: true, sigVerify: true } as never).send(),
    ).rejects.toMatchObject({ context: { __code: -32602 } });
  });

  it('sendTransaction: preflight failure is -32002 with Agave data; skipPreflight lands the failure', async () => {
    const bob = await generateKeyPairSigner();
    const bad = await signedBase64(h, payer, [getTransferSolInstruction({ source: payer, destination: bob.address, amount: 10n ** 17n })]);
    const err = await h.rpc
      .sendTransaction(bad as Base64EncodedWireTransaction, { encoding: 'base64' })
      .send()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ context: { __code: -32002 } });
    const raw = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [bad, { encoding: 'base64' }] }));
    expect(raw.json).toMatchObject({
      error: {
        code: -32002,
        message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
        data: { err: { InstructionError: [0, { Custom: 1 }] } },
      },
    });
    const sig = await h.rpc.sendTransaction(bad as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true }).send();
    await waitFor(h, sig);
    const status = await h.rpc.getSignatureStatuses([sig]).send();
    expect(status.value[0]?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    const again = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'sendTransaction', params: [bad, { encoding: 'base64' }] }));
    expect(again.json).toMatchObject({ error: { code: -32002, data: { err: 'AlreadyProcessed' } } });
  });

  it('sendTransaction accepts base58 (the default encoding)', async () => {
    const bob = await generateKeyPairSigner();
    const wire = await signedBase64(h, payer, [getTransferSolInstruction({ source: payer, destination: bob.address, amount: 1_000_000_000n })]);
    const { encodeBase58 } = await import('../../src/encoding/base58.ts');
    const b58 = encodeBase58(Buffer.from(wire, 'base64'));
    const res = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [b58] }));
    expect((res.json as { result: string }).result).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
  });
});

describe('localnet RPC: JSON-RPC framing and errors', () => {
  it('handles batches, notifications and error codes without crashing', async () => {
    const batch = await rawPost(
      h,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'noSuchMethod' },
        { jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-an-address'] },
        { jsonrpc: '2.0', method: 'getHealth' },
        { id: 5, method: 'getSlot' },
        42,
      ]),
    );
    const replies = batch.json as { id: unknown; result?: unknown; error?: { code: number; message: string } }[];
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3, 5, null]);
    expect(typeof replies[0]!.result).toBe('number');
    expect(replies.slice(1).map((r) => r.error?.code)).toEqual([-32601, -32602, -32600, -32600]);
    expect(replies[2]!.error?.message).toContain('Invalid');
    expect((await rawPost(h, '{"jsonrpc":"2.0",')).json).toMatchObject({ error: { code: -32700 }, id: null });
    expect((await rawPost(h, '[]')).json).toMatchObject({ error: { code: -32600 } });
    const bad = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'getAccountInfo', params: [payer.address, { encoding: 'hex' }] }));
    expect(bad.json).toMatchObject({ id: 9, error: { code: -32602 } });
    const big = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'getAccountInfo', params: [payer.address, { commitment: 'soon' }] }));
    expect(big.json).toMatchObject({ error: { code: -32602 } });
    expect(await h.rpc.getHealth().send()).toBe('ok');
  });

  it('prints u64 as JSON numbers and wraps context like Agave', async () => {
    const res = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [payer.address, { encoding: 'base64' }] }));
    const value = (res.json as { result: { context: { slot: number; apiVersion: string }; value: { rentEpoch: number; lamports: number } } }).result;
    expect(typeof value.context.slot).toBe('number');
    expect(value.context.apiVersion).toBeTypeOf('string');
    expect(typeof value.value.lamports).toBe('number');
  });
});

describe('localnet RPC: stablecoin faucet', () => {
  it('funds a fresh keypair that then signs a TransferChecked the localnet executes', async () => {
    const fresh = await generateKeyPairSigner();
    const res = await rawPost(h, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'localnet_fundStablecoin', params: [fresh.address, 5_000_000] }));
    const fundSig = (res.json as { result: Signature }).result;
    expect(fundSig).toBeTypeOf('string');
    await waitFor(h, fundSig);
    const stable = address(h.stablecoinMint);
    const [freshAta] = await findAssociatedTokenPda({ owner: fresh.address, mint: stable, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    expect((await h.rpc.getTokenAccountBalance(freshAta, { commitment: 'confirmed' }).send()).value.amount).toBe('5000000');
    const sol = await h.rpc.requestAirdrop(fresh.address, 1_000_000_000n as never).send();
    await waitFor(h, sol);
    const payTo = await generateKeyPairSigner();
    const [payToAta] = await findAssociatedTokenPda({ owner: payTo.address, mint: stable, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const sig = await send(fresh, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: fresh, ata: payToAta, owner: payTo.address, mint: stable }),
      getTransferCheckedInstruction({ source: freshAta, mint: stable, destination: payToAta, authority: fresh, amount: 10_000n, decimals: 6 }),
    ]);
    const status = await h.rpc.getSignatureStatuses([sig]).send();
    expect(status.value[0]?.err).toBeNull();
    const balances = await h.rpc.getTokenAccountsByOwner(payTo.address, { mint: stable }, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
    expect((balances.value[0]!.account.data as unknown as { parsed: { info: { tokenAmount: { amount: string } } } }).parsed.info.tokenAmount.amount).toBe(
      '10000',
    );
  });
});
