import { describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { createLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import type { BlockMetaEvent, ExecutedTransaction, SlotEvent } from '../../src/chain/types.ts';

async function wire(chain: LocalChain, payer: KeyPairSigner, ixs: Instruction[], version: 'legacy' | 0 = 0, blockhash?: string): Promise<Uint8Array> {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: (blockhash ?? chain.latestBlockhash('processed').blockhash) as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(ixs, m),
  );
  return Uint8Array.from(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
}

function newChain(): LocalChain {
  return createLocalChain({ slotsPerEpoch: 8n, startUnixSeconds: 1_700_000_000, slotMs: 400, startSlot: 100n });
}

describe('local chain', () => {
  it('airdrops with a real faucet transfer and records it', () => {
    const chain = newChain();
    const to = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
    const r = chain.airdrop(to, 2_000_000_000n);
    expect(r.ok).toBe(true);
    expect(chain.getAccount(to)?.lamports).toBe(2_000_000_000n);
    expect(chain.signaturesForAddress(to, { limit: 10, commitment: 'processed' }).map((e) => e.signature)).toEqual([r.signature]);
  });

  it('charges Agave fees (signature + priority) and lands failing transactions with err', async () => {
    const chain = newChain();
    const payer = await generateKeyPairSigner();
    const dest = await generateKeyPairSigner();
    chain.airdrop(payer.address, 10_000_000_000n);
    const before = chain.getAccount(payer.address)!.lamports;
    const ok = chain.sendTransaction(
      await wire(chain, payer, [
        getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
        getTransferSolInstruction({ source: payer, destination: dest.address, amount: 1_000_000_000n }),
      ]),
    );
    if (!ok.ok) throw new Error(ok.message);
    expect(ok.tx.fee).toBe(5000n + 6000n);
    expect(before - chain.getAccount(payer.address)!.lamports).toBe(1_000_000_000n + ok.tx.fee);
    expect(ok.tx.preBalances[0]! - ok.tx.postBalances[0]!).toBe(1_000_000_000n + ok.tx.fee);

    const fail = chain.sendTransaction(
      await wire(
        chain,
        payer,
        [getSetComputeUnitLimitInstruction({ units: 10_000 }), getTransferSolInstruction({ source: payer, destination: dest.address, amount: 10n ** 18n })],
        'legacy',
      ),
    );
    if (!fail.ok) throw new Error(fail.message);
    expect(fail.tx.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(fail.tx.logs.join('\n')).toContain('insufficient lamports');
    expect(chain.signatureStatus(fail.signature)?.err).toEqual(fail.tx.err);
  });

  it('rejects unknown blockhashes, duplicates and bad signatures without landing them', async () => {
    const chain = newChain();
    const payer = await generateKeyPairSigner();
    const dest = await generateKeyPairSigner();
    chain.airdrop(payer.address, 10_000_000_000n);
    const ix = [getTransferSolInstruction({ source: payer, destination: dest.address, amount: 1_000_000_000n })];
    const stale = chain.sendTransaction(await wire(chain, payer, ix, 0, '11111111111111111111111111111111'));
    expect(stale).toMatchObject({ ok: false, err: 'BlockhashNotFound' });
    const w = await wire(chain, payer, ix);
    expect(chain.sendTransaction(w).ok).toBe(true);
    expect(chain.sendTransaction(w)).toMatchObject({ ok: false, err: 'AlreadyProcessed' });
    const forged = Uint8Array.from(await wire(chain, payer, [getTransferSolInstruction({ source: payer, destination: dest.address, amount: 7n })]));
    forged[5] = forged[5]! ^ 0xff;
    const bad = chain.sendTransaction(forged);
    expect(bad).toMatchObject({ ok: false, err: 'SignatureFailure' });
    expect(chain.getAccount(dest.address)!.lamports).toBe(1_000_000_000n);
    expect(chain.sendTransaction(new Uint8Array([1, 2, 3]))).toMatchObject({ ok: false, reason: 'decode' });
  });

  it('closes slots with events in order, moves commitments, clock and epochs', async () => {
    const chain = newChain();
    const events: string[] = [];
    chain.on('transaction', (tx: ExecutedTransaction) => events.push(`tx:${tx.slot}`));
    chain.on('blockMeta', (b: BlockMetaEvent) => events.push(`meta:${b.slot}:${b.executedTransactionCount}`));
    chain.on('slot', (s: SlotEvent) => events.push(`slot:${s.slot}:${s.status}`));
    const r = chain.airdrop('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 1n);
    const h0 = chain.latestBlockhash('processed');
    chain.advanceSlot();
    chain.advanceSlot();
    chain.advanceSlot();
    expect(events).toEqual([
      'tx:101',
      'meta:101:1',
      'slot:101:processed',
      'meta:102:0',
      'slot:102:processed',
      'slot:101:confirmed',
      'meta:103:0',
      'slot:103:processed',
      'slot:102:confirmed',
      'slot:101:finalized',
    ]);
    expect(chain.signatureStatus(r.signature!)).toMatchObject({ slot: 101n, confirmationStatus: 'finalized', confirmations: null });
    const h1 = chain.latestBlockhash('processed');
    expect(h1.blockhash).not.toBe(h0.blockhash);
    expect(h1.lastValidBlockHeight).toBe(h0.lastValidBlockHeight + 3n);
    expect(chain.isBlockhashValid(h0.blockhash).valid).toBe(true);
    expect(chain.litesvm.getClock().slot).toBe(104n);
    expect(chain.epochInfo('processed')).toMatchObject({ epoch: 12n, slotIndex: 7n, absoluteSlot: 103n });
    chain.advanceSlot();
    expect(chain.epochInfo('processed')).toMatchObject({ epoch: 13n, slotIndex: 0n });
    expect(chain.litesvm.getClock().epoch).toBe(13n);
    expect(chain.blockTimeOf(105n) - chain.blockTimeOf(100n)).toBe(2);
  });

  it('isolates a throwing listener', () => {
    const errors: unknown[] = [];
    const chain = createLocalChain({ slotsPerEpoch: 32n, startUnixSeconds: 0, onListenerError: (e) => errors.push(e) });
    chain.on('blockMeta', () => {
      throw new Error('boom');
    });
    chain.advanceSlot();
    expect(errors).toHaveLength(1);
    expect(chain.slot('processed')).toBe(1n);
  });
});
