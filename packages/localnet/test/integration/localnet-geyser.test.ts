/**
 * The localnet Geyser server against the official `@triton-one/yellowstone-grpc` client,
 * unmodified, fed by a synthetic chain of real kit-signed transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type KeyPairSigner } from '@solana/kit';
import { CommitmentLevel, txEncode, txErrDecode, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { startGeyserServer, type GeyserServer } from '../../src/geyser/geyser-server.ts';
import { createSyntheticChain, JITO_TIP_ACCOUNT, makeTransaction, USDC_MINT } from '../fixtures/synthetic-geyser-chain.ts';
import { connectClient, openStream, settle, type GeyserClient } from './geyser-test-client.ts';

const b58 = getBase58Decoder();
const b58e = { encode: (text: string) => Uint8Array.from(getBase58Encoder().encode(text)) };
const chain = createSyntheticChain();
let server: GeyserServer;
let client: GeyserClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  server = await startGeyserServer({ events: chain.events, head: chain.head, host: '127.0.0.1', port: 0 });
  client = await connectClient(server.url);
  payer = await generateKeyPairSigner();
});

afterAll(async () => {
  await server.close();
});

const slotsOf = (updates: readonly SubscribeUpdate[]) => updates.filter((u) => u.slot).map((u) => u.slot!);
const txsOf = (updates: readonly SubscribeUpdate[]) => updates.filter((u) => u.transaction).map((u) => u.transaction!);

describe('localnet geyser: Subscribe', () => {
  it('streams slot updates with the filter name echoed and createdAt set', async () => {
    const open = await openStream(client, { slots: { mySlots: {} } });
    await settle(open, 1);
    const producedAfterMs = Date.now();
    const produced = chain.produceSlot([]);
    const updates = await open.until((u) => slotsOf(u).some((s) => s.slot === String(produced) && s.status === 0));
    const receivedByMs = Date.now();
    const update = updates.find((u) => u.slot?.slot === String(produced))!;
    expect(update.filters).toEqual(['mySlots']);
    expect(update.slot).toMatchObject({ slot: String(produced), parent: String(produced - 1n), status: 0 });
    expect(update.createdAt).toBeInstanceOf(Date);
    // Stamped when the update was framed: after the slot was produced, before it was received.
    expect(update.createdAt!.getTime()).toBeGreaterThanOrEqual(producedAfterMs);
    expect(update.createdAt!.getTime()).toBeLessThanOrEqual(receivedByMs);
    open.close();
  });

  it('delivers a transaction whose compute-unit price and Jito tip survive byte-exact', async () => {
    const open = await openStream(client, { transactions: { all: { vote: false } } });
    await settle(open, 2);
    const tx = await makeTransaction(payer, chain.nextSlot(), 0, { cuPrice: 123_456n, tipLamports: 1_000_042n, tokenBalances: true });
    chain.produceSlot([tx]);
    const [got] = txsOf(await open.until((u) => txsOf(u).length === 1));
    const info = got!.transaction!;
    expect(got!.slot).toBe(String(tx.slot));
    expect(b58.decode(info.signature)).toBe(tx.signature);
    expect(info.isVote).toBe(false);
    expect(info.index).toBe('0');
    const message = info.transaction!.message!;
    expect(message.accountKeys.map((k) => b58.decode(k))).toEqual(tx.accountKeys);
    expect(b58.decode(message.recentBlockhash)).toBe(tx.recentBlockhash);
    expect(message.instructions.map((ix) => [ix.programIdIndex, [...ix.accounts], [...ix.data]])).toEqual(
      tx.instructions.map((ix) => [ix.programIdIndex, ix.accounts, [...ix.data]]),
    );
    const meta = info.meta!;
    expect(meta.err).toBeUndefined();
    expect(meta.fee).toBe(String(tx.fee));
    expect(meta.preBalances).toEqual(tx.preBalances.map(String));
    expect(meta.computeUnitsConsumed).toBe('450');
    expect(meta.preTokenBalances[0]?.uiTokenAmount).toMatchObject({ amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' });
    expect(meta.innerInstructions[0]?.instructions[0]?.stackHeight).toBe(2);

    // The client's own Agave-JSON renderer reads the same compute-unit price and tip back.
    const json = txEncode.encode(info, txEncode.encoding.Json, 0, false) as unknown as AgaveJsonTx;
    const keys = json.transaction.message.accountKeys;
    const budget = json.transaction.message.instructions.filter((ix) => keys[ix.programIdIndex] === 'ComputeBudget111111111111111111111111111111');
    const priceData = b58e.encode(budget[1]!.data);
    expect(priceData[0]).toBe(3); // SetComputeUnitPrice
    expect(new DataView(priceData.buffer, priceData.byteOffset).getBigUint64(1, true)).toBe(123_456n);
    const tipIx = json.transaction.message.instructions.find((ix) => ix.accounts.some((a) => keys[a] === JITO_TIP_ACCOUNT))!;
    const tipData = b58e.encode(tipIx.data);
    expect(new DataView(tipData.buffer, tipData.byteOffset).getUint32(0, true)).toBe(2); // System Transfer
    expect(new DataView(tipData.buffer, tipData.byteOffset).getBigUint64(4, true)).toBe(1_000_042n);
    expect(json.meta.postTokenBalances[0]?.mint).toBe(USDC_MINT);
    open.close();
  });
});

describe('localnet geyser: transaction filters', () => {
  it('applies vote, failed, signature, include, exclude and required as Yellowstone does', async () => {
    const other = await generateKeyPairSigner();
    const marker = (await generateKeyPairSigner()).address;
    const slot = chain.nextSlot();
    const plain = await makeTransaction(payer, slot, 0, { cuPrice: 1_000n });
    const vote = await makeTransaction(other, slot, 1, { vote: true });
    const failed = await makeTransaction(payer, slot, 2, { failed: true, extraAccount: marker });
    const tipped = await makeTransaction(other, slot, 3, { tipLamports: 10_000n, extraAccount: marker });
    const open = await openStream(client, {
      transactions: {
        votes: { vote: true },
        nonVote: { vote: false },
        failedOnly: { failed: true },
        bySignature: { signature: tipped.signature },
        includeMarker: { accountInclude: [marker] },
        excludePayer: { accountExclude: [payer.address], vote: false },
        requireBoth: { accountRequired: [other.address, JITO_TIP_ACCOUNT] },
        includeButNotFailed: { accountInclude: [marker], failed: false },
      },
    });
    await settle(open, 3);
    chain.produceSlot([plain, vote, failed, tipped]);
    const txs = await open.until((u) => txsOf(u).length === 4).then(() => open.updates.filter((u) => u.transaction));
    const filtersOf = (sig: string) =>
      txs
        .find((u) => b58.decode(u.transaction!.transaction!.signature) === sig)!
        .filters.slice()
        .sort();
    expect(filtersOf(plain.signature)).toEqual(['nonVote']);
    expect(filtersOf(vote.signature)).toEqual(['votes']);
    expect(filtersOf(failed.signature)).toEqual(['failedOnly', 'includeMarker', 'nonVote']);
    expect(filtersOf(tipped.signature)).toEqual(['bySignature', 'excludePayer', 'includeButNotFailed', 'includeMarker', 'nonVote', 'requireBoth']);
    const failedMeta = txs.find((u) => u.filters.includes('failedOnly'))!.transaction!.transaction!.meta!;
    expect(txErrDecode.decode(failedMeta.err!.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
    open.close();
  });

  it('streams transaction statuses through transactionsStatus filters', async () => {
    const open = await openStream(client, { transactionsStatus: { st: { failed: true } } });
    await settle(open, 4);
    const failed = await makeTransaction(payer, chain.nextSlot(), 0, { failed: true });
    const ok = await makeTransaction(payer, chain.nextSlot(), 1);
    chain.produceSlot([ok, failed]);
    const [status] = (await open.until((u) => u.some((x) => x.transactionStatus))).filter((u) => u.transactionStatus);
    expect(b58.decode(status!.transactionStatus!.signature)).toBe(failed.signature);
    expect(status!.transactionStatus!.index).toBe('0');
    expect(txErrDecode.decode(status!.transactionStatus!.err!.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
    open.close();
  });

  it('replaces the filters when a new request arrives on the same stream', async () => {
    const open = await openStream(client, { slots: { first: {} } });
    await settle(open, 5);
    await open.send({ blocksMeta: { second: {} } });
    await settle(open, 6);
    const produced = chain.produceSlot([]);
    await open.until((u) => u.some((x) => x.blockMeta?.slot === String(produced)));
    await settle(open, 7);
    expect(open.updates.some((u) => u.slot?.slot === String(produced))).toBe(false);
    open.close();
  });
});

describe('localnet geyser: blocks meta and commitment', () => {
  it('streams blocks meta', async () => {
    const open = await openStream(client, { blocksMeta: { meta: {} } });
    await settle(open, 8);
    const produced = chain.produceSlot([await makeTransaction(payer, chain.nextSlot(), 0)]);
    const [meta] = (await open.until((u) => u.some((x) => x.blockMeta))).filter((u) => u.blockMeta);
    expect(meta!.filters).toEqual(['meta']);
    expect(meta!.blockMeta).toMatchObject({
      slot: String(produced),
      parentSlot: String(produced - 1n),
      executedTransactionCount: '1',
      blockHeight: { blockHeight: String(produced - 10n) },
      blockTime: { timestamp: String(1_750_000_000 + Number(produced)) },
    });
    open.close();
  });

  it('holds transactions and blocks meta until their slot is confirmed, then sends them before the slot status', async () => {
    const open = await openStream(client, {
      commitment: CommitmentLevel.CONFIRMED,
      slots: { all: {}, atCommitment: { filterByCommitment: true } },
      transactions: { all: {} },
      blocksMeta: { meta: {} },
    });
    await settle(open, 9);
    const tx = await makeTransaction(payer, chain.nextSlot(), 0);
    const slot = chain.produceSlot([tx], { autoConfirm: false });
    await open.until((u) => u.some((x) => x.slot?.slot === String(slot) && x.slot.status === 0));
    await settle(open, 10);
    expect(open.updates.some((u) => u.transaction || u.blockMeta)).toBe(false);
    const processed = open.updates.find((u) => u.slot?.slot === String(slot))!;
    expect(processed.filters).toEqual(['all']); // filterByCommitment drops the processed status
    chain.emitStatus(slot, 'confirmed');
    await open.until((u) => u.some((x) => x.slot?.slot === String(slot) && x.slot.status === 1));
    const tail = open.updates.slice(open.updates.indexOf(processed) + 1).filter((u) => !u.pong);
    expect(tail.map((u) => (u.transaction ? 'tx' : u.blockMeta ? 'meta' : `slot${u.slot?.status}`))).toEqual(['tx', 'meta', 'slot1']);
    expect(tail[2]!.filters.slice().sort()).toEqual(['all', 'atCommitment']);
    open.close();
  });

  it('at finalized, a finalized status releases every earlier buffered slot in order', async () => {
    const open = await openStream(client, { commitment: CommitmentLevel.FINALIZED, blocksMeta: { meta: {} } });
    await settle(open, 11);
    const a = chain.produceSlot([], { autoConfirm: false });
    const b = chain.produceSlot([], { autoConfirm: false });
    chain.emitStatus(a, 'confirmed');
    await settle(open, 12);
    expect(open.updates.some((u) => u.blockMeta)).toBe(false);
    chain.emitStatus(b, 'finalized');
    const metas = (await open.until((u) => u.filter((x) => x.blockMeta).length === 2)).filter((u) => u.blockMeta);
    expect(metas.map((u) => u.blockMeta!.slot)).toEqual([String(a), String(b)]);
    open.close();
  });
});

interface AgaveJsonTx {
  transaction: { message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } };
  meta: { err: unknown; postTokenBalances: { mint: string }[] };
}
