/**
 * The localnet Geyser server against the official `@triton-one/yellowstone-grpc` client,
 * unmodified, fed by a synthetic chain of real kit-signed transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, getBase58Decoder, type KeyPairSigner } from '@solana/kit';
import type Client from '@triton-one/yellowstone-grpc';
import { CommitmentLevel, txEncode, txErrDecode, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { startGeyserServer, type GeyserServer } from '../../src/localnet/geyser-server.ts';
import { createSyntheticChain, JITO_TIP_ACCOUNT, makeTransaction, USDC_MINT } from '../fixtures/synthetic-geyser-chain.ts';
import { connectClient, openStream, settle } from './geyser-test-client.ts';

const b58 = getBase58Decoder();
const chain = createSyntheticChain();
let server: GeyserServer;
let client: Client;
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
    const produced = chain.produceSlot([]);
    const updates = await open.until((u) => slotsOf(u).some((s) => s.slot === String(produced) && s.status === 0));
    const update = updates.find((u) => u.slot?.slot === String(produced))!;
    expect(update.filters).toEqual(['mySlots']);
    expect(update.slot).toMatchObject({ slot: String(produced), parent: String(produced - 1n), status: 0 });
    expect(update.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(update.createdAt!.getTime() - Date.now())).toBeLessThan(5_000);
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
    const price = json.transaction.message.instructions.find((ix) => keys[ix.programIdIndex] === 'ComputeBudget111111111111111111111111111111');
    expect(price).toBeDefined();
    const tipIx = json.transaction.message.instructions.find((ix) => ix.accounts.some((a) => keys[a] === JITO_TIP_ACCOUNT));
    expect(tipIx).toBeDefined();
    expect(json.meta.postTokenBalances[0]?.mint).toBe(USDC_MINT);
    open.close();
  });
});

interface AgaveJsonTx {
  transaction: { message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } };
  meta: { err: unknown; postTokenBalances: { mint: string }[] };
}

export { CommitmentLevel, txErrDecode };
