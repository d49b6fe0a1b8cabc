/**
 * Base `exact` payments against the real local EVM (EDR, chain id 8453, LocalUsdc compiled
 * from source): payments are built by the official `@x402/evm` client signer, verified by our
 * scheme, and settled for real, through our relayer and through a remote facilitator.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ReferenceEvmFacilitator } from '@x402/evm/exact/facilitator';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmRelayer } from '../../src/chain/evm/evm-relayer.ts';
import { createEvmTokenReader, type EvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { type LocalEvm, startLocalEvm } from '@solana-x402-intel/localnet';
import { createEvmExactScheme } from '../../src/x402/exact-evm/evm-exact.ts';
import { startEvmExactScheme } from '../../src/x402/exact-evm/evm-exact-setup.ts';
import { createRelayerSettler } from '../../src/x402/exact-evm/evm-relayer-settler.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from '../../src/x402/types/x402-types.ts';
import { startTestFacilitator, type TestFacilitator } from '../helpers/evm-facilitator-server.ts';
import { referenceEvmSigner } from '../helpers/evm-reference-signer.ts';

const PRICE_UNITS = 10_000n;
const PAYER_FUNDS = 1_000_000n;
const signal = new AbortController().signal;

let evm: LocalEvm;
let scheme: ExactScheme;
let reader: EvmTokenReader;
let terms: PaymentRequirements;
const payerKey = generateEvmKey();
const payer = evmAccountFromKey(payerKey);
const payTo = evmAddressOfKey(generateEvmKey());

/** A payment for `signed` terms made by the official client, presented as accepting `accepted`. */
async function pay(signed: Partial<PaymentRequirements> = {}, key = payerKey, accepted?: PaymentRequirements): Promise<PaymentPayload> {
  const requirements = { ...terms, ...signed, extra: { ...terms.extra, ...signed.extra } };
  const client = new ExactEvmScheme(evmAccountFromKey(key));
  const created = await client.createPaymentPayload(2, requirements as Parameters<typeof client.createPaymentPayload>[1]);
  return { x402Version: 2, accepted: accepted ?? requirements, payload: created.payload as Record<string, unknown> };
}

async function balances(addresses: readonly string[]): Promise<bigint[]> {
  return Promise.all(
    addresses.map(async (a) => {
      const s = await reader.payerState(a, `0x${'00'.repeat(32)}`);
      if (!s.ok) throw new Error(s.message);
      return s.balance;
    }),
  );
}

/** One JSON-RPC call to the local EVM (including its evm_* / hardhat_* test methods). */
async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const body = (await (await fetch(evm.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as {
    result?: unknown;
    error?: { message: string };
  };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

beforeAll(async () => {
  evm = await startLocalEvm({ host: '127.0.0.1', port: 0, seed: 'payments-evm' });
  terms = {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: String(PRICE_UNITS),
    asset: evm.usdcAddress,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: evm.name, version: evm.version },
  };
  scheme = await startEvmExactScheme({
    asset: evm.usdcAddress,
    name: evm.name,
    version: evm.version,
    settlement: { kind: 'relayer', rpcUrl: evm.url, relayerKey: evm.relayerKey as `0x${string}` },
  });
  reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
  await evm.fundUsdc(payer.address, PAYER_FUNDS);
});

afterAll(async () => {
  await evm?.close();
});

describe('local EVM', () => {
  it('serves chain id 8453 and LocalUsdc with the Base USDC EIP-712 domain', async () => {
    expect(evm.chainId).toBe(8453);
    expect(await reader.chainId()).toBe(8453);
    expect(await reader.domain()).toEqual({ name: 'USD Coin', version: '2' });
  });

  it('funds over JSON-RPC with localnet_fundStablecoin and refuses bad params', async () => {
    const target = evmAddressOfKey(generateEvmKey());
    const rpc = async (params: unknown[]) =>
      (await fetch(evm.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'localnet_fundStablecoin', params }) })).json() as Promise<{
        result?: string;
        error?: { code: number };
      }>;
    expect((await rpc([target, '2500'])).result).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balances([target])).toEqual([2500n]);
    expect((await rpc(['0x1234', '1'])).error?.code).toBe(-32602);
    expect((await rpc([target, '-5'])).error?.code).toBe(-32602);
  });

  it('deploys LocalUsdc at the same address for the same seed', async () => {
    const again = await startLocalEvm({ host: '127.0.0.1', port: 0, seed: 'payments-evm' });
    const other = await startLocalEvm({ host: '127.0.0.1', port: 0, seed: 'another-seed' });
    expect(again.usdcAddress).toBe(evm.usdcAddress);
    expect(other.usdcAddress).not.toBe(evm.usdcAddress);
    await Promise.all([again.close(), other.close()]);
  });
});

describe('verify', () => {
  it('accepts a valid payment from the official client', async () => {
    const result = await scheme.verify(await pay(), terms, signal);
    expect(result).toEqual({ isValid: true, payer: payer.address, simulateMs: expect.any(Number) });
  });

  it.each([
    ['wrong to', { payTo: evmAddressOfKey(generateEvmKey()) }, 'invalid_exact_evm_recipient_mismatch'],
    ['wrong value', { amount: String(PRICE_UNITS - 1n) }, 'invalid_exact_evm_payload_authorization_value_mismatch'],
    ['expired (inside the 6 s settlement margin)', { maxTimeoutSeconds: 3 }, 'invalid_exact_evm_payload_authorization_valid_before'],
    ['wrong EIP-712 name', { extra: { name: 'USDC', version: '2' } }, 'invalid_exact_evm_signature'],
    ['wrong EIP-712 version', { extra: { name: 'USD Coin', version: '1' } }, 'invalid_exact_evm_signature'],
    ['wrong asset (verifyingContract)', { asset: evmAddressOfKey(generateEvmKey()) }, 'invalid_exact_evm_signature'],
    ['wrong chain id', { network: 'eip155:84532' }, 'invalid_exact_evm_signature'],
  ])('rejects %s', async (_label, signed, reason) => {
    const result = await scheme.verify(await pay(signed as Partial<PaymentRequirements>, payerKey, terms), terms, signal);
    expect(result.isValid).toBe(false);
    expect(result.invalidReason).toBe(reason);
  });

  it('rejects a payment accepted for another network', async () => {
    const accepted = { ...terms, network: 'eip155:84532' };
    const result = await scheme.verify(await pay({ network: 'eip155:84532' }, payerKey, accepted), terms, signal);
    expect(result.invalidReason).toBe('invalid_exact_evm_network_mismatch');
  });

  it('rejects a value raised after signing as a bad signature', async () => {
    const p = await pay();
    const payload = p.payload as { authorization: Record<string, string>; signature: string };
    const tampered = { ...p, payload: { ...payload, authorization: { ...payload.authorization, value: String(PRICE_UNITS * 10n) } } };
    expect((await scheme.verify(tampered, { ...terms, amount: String(PRICE_UNITS * 10n) }, signal)).invalidReason).toBe('invalid_exact_evm_signature');
  });

  it('rejects a payer without enough balance', async () => {
    const poorKey = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(poorKey), PRICE_UNITS - 1n);
    expect((await scheme.verify(await pay({}, poorKey), terms, signal)).invalidReason).toBe('invalid_exact_evm_insufficient_balance');
  });

  it('gives the replay key asset:from:nonce in lower case', async () => {
    const p = await pay();
    const auth = (p.payload as { authorization: { nonce: string } }).authorization;
    expect(scheme.replayKey(p)).toBe(`${evm.usdcAddress}:${payer.address}:${auth.nonce}`.toLowerCase());
    expect(scheme.replayKey({ ...p, payload: {} })).toBeNull();
  });
});

describe('settle through the relayer', () => {
  it('moves exactly the amount, uses the nonce, and refuses the same payment again', async () => {
    const p = await pay();
    const nonce = (p.payload as { authorization: { nonce: string } }).authorization.nonce;
    const [payerBefore, payToBefore] = await balances([payer.address, payTo]);
    expect((await scheme.verify(p, terms, signal)).isValid).toBe(true);
    const settled = await scheme.settle(p, terms, signal);
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const [payerAfter, payToAfter] = await balances([payer.address, payTo]);
    expect(payerBefore! - payerAfter!).toBe(PRICE_UNITS);
    expect(payToAfter! - payToBefore!).toBe(PRICE_UNITS);
    expect(await reader.payerState(payer.address, nonce)).toMatchObject({ ok: true, nonceUsed: true });

    expect((await scheme.verify(p, terms, signal)).invalidReason).toBe('invalid_exact_evm_nonce_already_used');
    const again = await scheme.settle(p, terms, signal);
    expect(again).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' });
    expect(await balances([payer.address])).toEqual([payerAfter]);
  });

  it('settles concurrent payments from one relayer without nonce collisions', async () => {
    const payments = await Promise.all([pay(), pay(), pay(), pay()]);
    const [before] = await balances([payTo]);
    const results = await Promise.all(payments.map((p) => scheme.settle(p, terms, signal)));
    expect(results.every((r) => r.success)).toBe(true);
    expect(new Set(results.map((r) => r.transaction)).size).toBe(4);
    expect(await balances([payTo])).toEqual([before! + 4n * PRICE_UNITS]);
  });

  it('refuses an authorization that expired before settlement with the contract reason', async () => {
    const p = await pay({ maxTimeoutSeconds: 1 });
    // The chain's clock, not the test's: the block that would carry the transfer is stamped after validBefore.
    const validBefore = Number((p.payload as { authorization: { validBefore: string } }).authorization.validBefore);
    const latest = (await rpc('eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
    await rpc('evm_setNextBlockTimestamp', [Math.max(validBefore + 1, Number(latest.timestamp) + 1)]);
    expect(await scheme.settle(p, terms, signal)).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_payload_authorization_valid_before' });
  });
});

describe('settle through a remote x402 facilitator', () => {
  let facilitator: TestFacilitator;
  let remote: ExactScheme;

  beforeAll(async () => {
    facilitator = await startTestFacilitator(scheme);
    remote = await startEvmExactScheme({
      asset: evm.usdcAddress,
      name: evm.name,
      version: evm.version,
      settlement: { kind: 'facilitator', url: facilitator.url },
    });
  });
  afterAll(async () => facilitator?.close());

  it('lists the facilitator signers from /supported', () => {
    expect(remote.getSigners()).toEqual(scheme.getSigners());
    expect(facilitator.calls).toContain('GET /supported');
  });

  it('verifies and settles for real, then relays the nonce-used refusal', async () => {
    const p = await pay();
    const [payerBefore, payToBefore] = await balances([payer.address, payTo]);
    expect(await remote.verify(p, terms, signal)).toEqual({ isValid: true, payer: payer.address, simulateMs: expect.any(Number) });
    const settled = await remote.settle(p, terms, signal);
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: payer.address });
    const [payerAfter, payToAfter] = await balances([payer.address, payTo]);
    expect(payerBefore! - payerAfter!).toBe(PRICE_UNITS);
    expect(payToAfter! - payToBefore!).toBe(PRICE_UNITS);
    expect((await remote.verify(p, terms, signal)).invalidReason).toBe('invalid_exact_evm_nonce_already_used');
    expect(facilitator.calls.filter((c) => c === 'POST /settle')).toHaveLength(1);
  });

  it('refuses off-chain problems before asking the facilitator', async () => {
    const before = facilitator.calls.length;
    expect((await remote.verify(await pay({ amount: '1' }, payerKey, terms), terms, signal)).invalidReason).toBe(
      'invalid_exact_evm_payload_authorization_value_mismatch',
    );
    expect(facilitator.calls.length).toBe(before);
  });

  it('answers an unreachable facilitator with an unexpected_* reason, not an exception', async () => {
    const dead = await startTestFacilitator(scheme);
    const viaDead = await startEvmExactScheme({
      asset: evm.usdcAddress,
      name: evm.name,
      version: evm.version,
      settlement: { kind: 'facilitator', url: dead.url },
    });
    await dead.close();
    const p = await pay();
    expect((await viaDead.verify(p, terms, signal)).invalidReason).toBe('unexpected_verify_error');
    expect(await viaDead.settle(p, terms, signal)).toMatchObject({ success: false, errorReason: 'unexpected_settle_error' });
  });
});

describe('start-up checks', () => {
  it('refuses terms whose EIP-712 domain differs from the token', async () => {
    await expect(
      startEvmExactScheme({
        asset: evm.usdcAddress,
        name: 'USDC',
        version: '2',
        settlement: { kind: 'relayer', rpcUrl: evm.url, relayerKey: evm.relayerKey as `0x${string}` },
      }),
    ).rejects.toThrow(/EIP-712 domain "USD Coin" v"2"/);
  });

  it('refuses an RPC of another chain', async () => {
    await expect(
      startEvmExactScheme({
        network: 'eip155:1',
        asset: evm.usdcAddress,
        name: evm.name,
        version: evm.version,
        settlement: { kind: 'relayer', rpcUrl: evm.url, relayerKey: evm.relayerKey as `0x${string}` },
      }),
    ).rejects.toThrow(/chain id 8453/);
  });
});

describe('a settlement not mined within the receipt wait', () => {
  let clock = 0;
  let slow: ExactScheme;

  beforeAll(() => {
    const relayer = createEvmRelayer({ rpcUrl: evm.url, asset: evm.usdcAddress, key: evm.relayerKey as `0x${string}`, chainId: 8453 });
    const nowSeconds = () => clock || Date.now() / 1000;
    slow = createEvmExactScheme({ settler: createRelayerSettler({ reader, relayer, receiptTimeoutMs: 300, nowSeconds }), nowSeconds });
  });
  afterAll(async () => {
    clock = 0;
    await rpc('evm_setAutomine', [true]);
  });

  it('is pending while unmined, landed once mined (by the nonce), and moved the price once', async () => {
    const p = await pay();
    const [payerBefore] = await balances([payer.address]);
    await rpc('evm_setAutomine', [false]);
    const settled = await slow.settle(p, terms, signal);
    expect(settled).toMatchObject({ success: false, errorReason: 'settlement_pending' });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await slow.settlementStatus!(p, terms, settled.transaction, signal)).toMatchObject({ status: 'pending' });
    await rpc('evm_mine');
    expect(await slow.settlementStatus!(p, terms, settled.transaction, signal)).toEqual({ status: 'landed' });
    expect(await balances([payer.address])).toEqual([payerBefore! - PRICE_UNITS]);
    await rpc('evm_setAutomine', [true]);
  });

  it('fails only once the authorization expired with its nonce unused (the transaction dropped)', async () => {
    const p = await pay();
    const [payerBefore] = await balances([payer.address]);
    await rpc('evm_setAutomine', [false]);
    const settled = await slow.settle(p, terms, signal);
    expect(settled.errorReason).toBe('settlement_pending');
    await rpc('hardhat_dropTransaction', [settled.transaction]);
    expect(await slow.settlementStatus!(p, terms, settled.transaction, signal)).toMatchObject({ status: 'pending' });
    const validBefore = Number((p.payload as { authorization: { validBefore: string } }).authorization.validBefore);
    clock = validBefore + 61;
    expect(await slow.settlementStatus!(p, terms, settled.transaction, signal)).toMatchObject({
      status: 'failed',
      reason: 'invalid_exact_evm_payload_authorization_valid_before',
    });
    clock = 0;
    await rpc('evm_setAutomine', [true]);
    await rpc('evm_mine');
    expect(await balances([payer.address])).toEqual([payerBefore]);
  });
});

describe('a broadcast whose answer is lost', () => {
  it('is pending, not failed, and resolves as landed by the nonce: the payer is answered, charged once', async () => {
    // Forwards everything; for eth_sendRawTransaction it forwards, then answers an error as a node whose reply was lost would.
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const upstream = await (await fetch(evm.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
        const parsed = JSON.parse(body) as { id?: unknown; method?: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          parsed.method === 'eth_sendRawTransaction'
            ? JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error: { code: -32000, message: 'upstream connection reset' } })
            : upstream,
        );
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const relayer = createEvmRelayer({ rpcUrl: proxyUrl, asset: evm.usdcAddress, key: evm.relayerKey as `0x${string}`, chainId: 8453 });
      const lossy = createEvmExactScheme({ settler: createRelayerSettler({ reader, relayer, receiptTimeoutMs: 300 }) });
      const p = await pay();
      const [payerBefore] = await balances([payer.address]);
      const settled = await lossy.settle(p, terms, signal);
      expect(settled).toMatchObject({ success: false, errorReason: 'settlement_pending' });
      expect(await lossy.settlementStatus!(p, terms, settled.transaction, signal)).toEqual({ status: 'landed' });
      expect(await balances([payer.address])).toEqual([payerBefore! - PRICE_UNITS]);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

describe('settle through the reference x402 facilitator (@x402/evm) over HTTP', () => {
  let reference: TestFacilitator;
  let viaReference: ExactScheme;
  const rpc = async (method: string, params: unknown[] = []) => {
    const body = (await (await fetch(evm.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as {
      error?: { message: string };
    };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
  };

  beforeAll(async () => {
    // Its own sending key: sharing the relayer's would race our relayer's nonce bookkeeping.
    const key = generateEvmKey();
    await evm.fundEth(evmAddressOfKey(key), 10n ** 18n);
    const facilitator = new ReferenceEvmFacilitator(referenceEvmSigner(evm.url, key, 1_000));
    const asScheme: ExactScheme = {
      network: 'eip155:8453',
      getExtra: () => ({}),
      getSigners: () => facilitator.getSigners('eip155:8453'),
      replayKey: () => null,
      verify: (p, r) => facilitator.verify(p as never, r as never),
      settle: (p, r) => facilitator.settle(p as never, r as never) as ReturnType<ExactScheme['settle']>,
    };
    reference = await startTestFacilitator(asScheme);
    viaReference = await startEvmExactScheme({
      asset: evm.usdcAddress,
      name: evm.name,
      version: evm.version,
      settlement: { kind: 'facilitator', url: reference.url },
    });
  });
  afterAll(async () => {
    await rpc('evm_setAutomine', [true]);
    await reference?.close();
  });

  it('verifies and settles for real', async () => {
    const p = await pay();
    const [before] = await balances([payTo]);
    expect(await viaReference.verify(p, terms, signal)).toEqual({ isValid: true, payer: payer.address, simulateMs: expect.any(Number) });
    expect(await viaReference.settle(p, terms, signal)).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(await balances([payTo])).toEqual([before! + PRICE_UNITS]);
  });

  it('a settlement still unmined is pending; the reconciling re-settle reports it landed once mined, charged once', async () => {
    const p = await pay();
    const [before] = await balances([payTo]);
    await rpc('evm_setAutomine', [false]);
    const settled = await viaReference.settle(p, terms, signal);
    expect(settled).toMatchObject({ success: false, errorReason: 'settlement_pending' });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    await rpc('evm_mine');
    expect(await viaReference.settlementStatus!(p, terms, settled.transaction, signal)).toEqual({ status: 'landed' });
    expect(await balances([payTo])).toEqual([before! + PRICE_UNITS]);
    await rpc('evm_setAutomine', [true]);
  });
});
