/**
 * Differential check of our exact-SVM verifier against the reference facilitator of @x402/svm
 * (its ExactSvmScheme with a signer over the localnet RPC): the same payloads, judged by both,
 * must get the same verdict and, when invalid, the same reason; where only the chain can judge
 * (the reference's simulation), ours is the send's preflight, refused with the same reason. Two documented divergences, both
 * where we are stricter: we refuse a fee payer named in ANY instruction (x402 spec: fee payer
 * isolation; the reference's static path only checks the transfer authority, so it reports a later
 * rule instead), and a priority fee (limit x price) over our per-settlement ceiling (the reference
 * caps the price alone). The reference is given our compute-unit cap, which it supports as an option.
 */
import { AccountRole, address, createKeyPairSignerFromPrivateKeyBytes, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { ExactSvmScheme as ReferenceFacilitator } from '@x402/svm/exact/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/chain/solana/rpc-client.ts';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from '../../src/x402/types/x402-types.ts';
import { createSvmExactScheme } from '../../src/x402/exact-svm/svm-exact.ts';
import { MAX_PAYMENT_COMPUTE_UNITS, MAX_REQUIRED_SIGNATURES } from '../../src/x402/exact-svm/svm-rules.ts';
import { buildPaymentTx, fundedPayer, MEMO_PROGRAM, rpcCall, type PaymentTxOptions, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const LIGHTHOUSE = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95';
let localnet: Localnet;
let pool: WorkerPool<PoolTasks>;
let ours: ExactScheme;
let reference: ReferenceFacilitator;
let feePayer: string;
let payer: TestPayer;
let broke: TestPayer;
let requirements: PaymentRequirements;

let extraSigners: KeyPairSigner[] = [];
const memoSignedBy = (signers: readonly KeyPairSigner[]): Instruction => ({
  programAddress: address(MEMO_PROGRAM),
  accounts: signers.map((signer) => ({ address: signer.address, role: AccountRole.READONLY_SIGNER, signer })),
  data: new TextEncoder().encode('co-signed'),
});
const memo = (text: string): Instruction => ({ programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(text) });

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet());
  const rpcUrl = localnet.urls.rpc;
  const seed = new Uint8Array(randomBytes(32));
  const identity = await createKeyPairSignerFromPrivateKeyBytes(seed);
  feePayer = identity.address;
  const payTo = encodeBase58(new Uint8Array(randomBytes(32)));
  await rpcCall(rpcUrl, 'requestAirdrop', [feePayer, 10_000_000_000]);
  await rpcCall(rpcUrl, 'localnet_fundStablecoin', [payTo, 0]);
  pool = createWorkerPool({ size: 1, identitySeed: seed });
  ours = createSvmExactScheme({ network: SOLANA, feePayer, rpc: createRpcClient({ url: rpcUrl }), pool });
  // The reference caps the compute-unit limit and the signatures only when told to: told ours, it judges them as we do.
  reference = new ReferenceFacilitator(toFacilitatorSvmSigner(identity, { defaultRpcUrl: rpcUrl }), undefined, {
    maxComputeUnits: MAX_PAYMENT_COMPUTE_UNITS,
    maxRequiredSignatures: MAX_REQUIRED_SIGNATURES,
  });
  payer = await fundedPayer(rpcUrl, 1_000_000);
  broke = await fundedPayer(rpcUrl, 10);
  extraSigners = await Promise.all([1, 2].map(() => createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(randomBytes(32)))));
  requirements = { scheme: 'exact', network: SOLANA, amount: '1000', asset: localnet.stablecoinMint, payTo, maxTimeoutSeconds: 60, extra: { feePayer } };
});
afterAll(async () => {
  await pool.close();
  await localnet.close();
});

type Mutation = (o: PaymentTxOptions) => PaymentTxOptions;
interface Case {
  readonly name: string;
  readonly tx?: Mutation;
  /** Changes the payload after building (network, garbage bytes, flipped signature). */
  readonly payload?: (p: PaymentPayload) => PaymentPayload;
  readonly requirements?: (r: PaymentRequirements) => PaymentRequirements;
  readonly expectValid: boolean;
  /**
   * Judged by the chain: the reference's simulation refuses it; ours has no simulation (one chain
   * round trip: docs/payments.md#one-chain-round-trip), so our verdict is the send's preflight, at
   * settlement, before anything is broadcast.
   */
  readonly atSend?: true;
}

const flipSignatureByte = (p: PaymentPayload): PaymentPayload => {
  const wire = Buffer.from(String(p.payload.transaction), 'base64');
  wire[1 + 64 + 5]! ^= 0x80;
  return { ...p, payload: { transaction: wire.toString('base64') } };
};
const zeroPayerSignature = (p: PaymentPayload): PaymentPayload => {
  const wire = Buffer.from(String(p.payload.transaction), 'base64');
  wire.fill(0, 1 + 64, 1 + 128);
  return { ...p, payload: { transaction: wire.toString('base64') } };
};

const CASES: readonly Case[] = [
  { name: 'valid: the official client layout', expectValid: true },
  // At the price cap the limit must stay small for limit x price to fit our priority-fee ceiling (5,000 lamports).
  { name: 'valid: compute-unit price exactly at the cap', tx: (o) => ({ ...o, cuPrice: 5_000_000n, cuLimit: 1_000 }), expectValid: true },
  { name: 'compute-unit limit over our cap', tx: (o) => ({ ...o, cuLimit: MAX_PAYMENT_COMPUTE_UNITS + 1 }), expectValid: false },
  { name: 'a memo naming two more signers (4 signatures)', tx: (o) => ({ ...o, extra: [memoSignedBy(extraSigners)] }), expectValid: false },
  { name: 'valid: a memo naming one more signer (3 signatures)', tx: (o) => ({ ...o, extra: [memoSignedBy(extraSigners.slice(0, 1))] }), expectValid: true },
  { name: 'compute-unit limit 1,400,000 at the price cap', tx: (o) => ({ ...o, cuLimit: 1_400_000, cuPrice: 5_000_000n }), expectValid: false },
  { name: 'valid: two memos after the transfer', tx: (o) => ({ ...o, extra: [memo('second')] }), expectValid: true },
  { name: 'amount one unit short', tx: (o) => ({ ...o, amount: o.amount - 1n }), expectValid: false },
  { name: 'amount one unit over', tx: (o) => ({ ...o, amount: o.amount + 1n }), expectValid: false },
  { name: 'amount zero', tx: (o) => ({ ...o, amount: 0n }), expectValid: false },
  { name: 'payTo of another owner', tx: (o) => ({ ...o, payTo: payer.signer.address }), expectValid: false },
  { name: 'another mint', tx: (o) => ({ ...o, mint: USDC }), expectValid: false },
  { name: 'fee payer is not ours', tx: (o) => ({ ...o, feePayer: payer.signer.address }), expectValid: false },
  { name: 'fee payer as transfer authority', tx: (o) => ({ ...o, authority: feePayer }), expectValid: false },
  { name: 'one flipped signature byte', payload: flipSignatureByte, expectValid: false },
  { name: 'payer signature missing', payload: zeroPayerSignature, expectValid: false },
  {
    name: 'an extra System transfer (fifth instruction)',
    tx: (o) => ({ ...o, extra: [getTransferSolInstruction({ source: payer.signer, destination: address(USDC), amount: 1n })] }),
    expectValid: false,
  },
  {
    name: 'extra System transfer as sixth instruction',
    tx: (o) => ({ ...o, extra: [memo('x'), getTransferSolInstruction({ source: payer.signer, destination: address(USDC), amount: 1n })] }),
    expectValid: false,
  },
  { name: 'compute-unit price over the cap', tx: (o) => ({ ...o, cuPrice: 5_000_001n }), expectValid: false },
  { name: 'compute budget instructions swapped', tx: (o) => ({ ...o, arrange: (p) => [p.price, p.limit, p.transfer, p.memo] }), expectValid: false },
  { name: 'no compute-unit limit', tx: (o) => ({ ...o, arrange: (p) => [p.price, p.transfer, p.memo] }), expectValid: false },
  { name: 'memo before the transfer', tx: (o) => ({ ...o, arrange: (p) => [p.limit, p.price, p.memo, p.transfer] }), expectValid: false },
  { name: 'only two instructions', tx: (o) => ({ ...o, arrange: (p) => [p.transfer, p.memo] }), expectValid: false },
  { name: 'eight instructions', tx: (o) => ({ ...o, extra: [memo('a'), memo('b'), memo('c'), memo('d')] }), expectValid: false },
  // Ours refuses it in the rules, before any read: a payment handed off without preflight must never reach the chain with it.
  { name: 'wrong decimals (fails in simulation; ours in the rules, with the same code)', tx: (o) => ({ ...o, decimals: 5 }), expectValid: false },
  { name: 'payer without the funds (fails in simulation; ours in the balance read)', tx: (o) => ({ ...o, payer: broke }), expectValid: false },
  {
    name: 'Lighthouse instruction to a program absent here (fails in simulation; ours at the send)',
    tx: (o) => ({ ...o, extra: [{ programAddress: address(LIGHTHOUSE), data: new Uint8Array([0]) }] }),
    expectValid: false,
    atSend: true,
  },
  { name: 'accepted on another network', payload: (p) => ({ ...p, accepted: { ...p.accepted, network: SOLANA_DEVNET } }), expectValid: false },
  { name: 'fee payer not managed by the facilitator', requirements: (r) => ({ ...r, extra: { feePayer: payer.signer.address } }), expectValid: false },
  {
    name: 'undecodable transaction bytes',
    payload: (p) => ({ ...p, payload: { transaction: Buffer.from('not a transaction at all').toString('base64') } }),
    expectValid: false,
  },
];

async function payloadFor(c: Case): Promise<PaymentPayload> {
  const { value } = await rpcCall<{ value: { blockhash: string } }>(localnet.urls.rpc, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
  const base: PaymentTxOptions = {
    payer,
    feePayer,
    mint: requirements.asset,
    payTo: requirements.payTo,
    amount: BigInt(requirements.amount),
    blockhash: value.blockhash,
  };
  const transaction = await buildPaymentTx(c.tx ? c.tx(base) : base);
  const payload: PaymentPayload = { x402Version: 2, accepted: requirements, payload: { transaction } };
  return c.payload ? c.payload(payload) : payload;
}

/** Our verdict: verification's, and for a payment it passes that only the chain refuses, the send's (nothing is broadcast: its preflight fails). */
async function judged(payload: PaymentPayload, reqs: PaymentRequirements, atSend: boolean): Promise<{ valid: boolean; reason: string | null }> {
  const signal = new AbortController().signal;
  const verified = await ours.verify(payload, reqs, signal);
  if (!verified.isValid || !atSend) return { valid: verified.isValid, reason: verified.invalidReason ?? null };
  const settled = await ours.settle(payload, reqs, signal);
  expect(settled).toMatchObject({ success: false, transaction: '', refused: true });
  return { valid: false, reason: settled.errorReason ?? null };
}

describe('our verifier and the @x402/svm reference facilitator agree', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const payload = await payloadFor(c);
    const reqs = c.requirements ? c.requirements(requirements) : requirements;
    const [mine, theirs] = await Promise.all([judged(payload, reqs, c.atSend === true), reference.verify(payload as never, reqs as never)]);
    expect(mine).toEqual({ valid: theirs.isValid, reason: theirs.invalidReason ?? null });
    expect(mine.valid).toBe(c.expectValid);
  });

  it('diverges only where we are stricter: fee payer named in a non-transfer instruction', async () => {
    const payload = await payloadFor({
      name: 'isolation',
      expectValid: false,
      tx: (o) => ({ ...o, extra: [getTransferSolInstruction({ source: payer.signer, destination: address(feePayer), amount: 1n })] }),
    });
    const mine = await ours.verify(payload, requirements, new AbortController().signal);
    const theirs = await reference.verify(payload as never, requirements as never);
    expect(mine).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds' });
    expect(theirs.isValid).toBe(false);
  });

  it('diverges only where we are stricter: limit x price over our priority-fee ceiling (the reference caps the price alone)', async () => {
    const payload = await payloadFor({ name: 'priority fee', expectValid: false, tx: (o) => ({ ...o, cuPrice: 5_000_000n }) });
    const mine = await ours.verify(payload, requirements, new AbortController().signal);
    const theirs = await reference.verify(payload as never, requirements as never);
    expect(mine).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_payload_transaction_priority_fee_too_high' });
    expect(theirs.isValid).toBe(true);
  });
});
