import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it } from 'vitest';
import { paidCallsStopped } from '../../../src/service/trust-stack.ts';
import { signEd25519 } from '../../../src/tlog/checkpoint.ts';
import { createLedger, type Ledger } from '../../../src/ledger/ledger.ts';
import { createLedgerBacklog, withLedgerBacklog } from '../../../src/receipts/ledger-backlog.ts';
import { createReceiptIssuer } from '../../../src/receipts/receipt-issuer.ts';

const keys = nacl.sign.keyPair();
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'backlog-'));
  dirs.push(d);
  return d;
};
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A real file ledger whose appends can be refused, as a full disk or a lost database refuses them. */
async function faultyLedger(dir: string) {
  const ledger = await createLedger({ dir: join(dir, 'ledger'), nodeStore: 'memory' });
  open.push(ledger);
  const state = { refusing: true };
  const faulty: Pick<Ledger, 'append'> = { append: (d) => (state.refusing ? Promise.reject(new Error('EIO: write refused')) : ledger.append(d)) };
  return { ledger, faulty, state };
}

function issuerOver(ledger: Pick<Ledger, 'append'>) {
  const sign = (m: Uint8Array) => Promise.resolve(signEd25519(keys.secretKey, m));
  return createReceiptIssuer({ ledger, service: 's', serviceVersion: '1', baseUrl: () => 'http://h', publicKey: bs58.encode(keys.publicKey), sign });
}

const answer = { originalUrl: '/v1/epoch?rate=both', endpoint: '/v1/epoch', priceUsdcUnits: 1000, network: 'eip155:8453', body: '{"epoch":1}' };
const noKill = { isActive: () => false };
const healthy = { failure: () => null };

describe('a settled answer whose ledger append fails', () => {
  it('is recorded durably, stops new paid calls, and its entry is appended once the ledger writes again', async () => {
    const dir = freshDir();
    const { ledger, faulty, state } = await faultyLedger(dir);
    const issuer = issuerOver(faulty);
    const backlog = createLedgerBacklog({ dir: join(dir, 'backlog'), issue: issuer.issue, retryMs: 60_000 });
    open.push(backlog);
    const receipts = withLedgerBacklog(issuer, backlog, () => undefined);

    await expect(receipts.issue(answer)).rejects.toThrow(/ledger append failed/);
    expect(backlog.size()).toBe(1);
    // The ledger itself reports no failure (the database's writer clears it after its retry window): the backlog still stops payments.
    expect(paidCallsStopped(noKill, healthy, backlog)).toMatch(/wait for their ledger entries/);

    await backlog.drain();
    expect(backlog.size()).toBe(1);
    state.refusing = false;
    await backlog.drain();
    expect(backlog.size()).toBe(0);
    expect(ledger.head().treeSize).toBe(1);
    expect(paidCallsStopped(noKill, healthy, backlog)).toBeNull();
  });

  it('survives a restart: what waited is read back and appended, and nothing twice', async () => {
    const dir = freshDir();
    const { ledger, faulty, state } = await faultyLedger(dir);
    const issuer = issuerOver(faulty);
    const first = createLedgerBacklog({ dir: join(dir, 'backlog'), issue: issuer.issue, retryMs: 60_000 });
    await withLedgerBacklog(issuer, first, () => undefined)
      .issue(answer)
      .catch(() => undefined);
    await first.close();
    state.refusing = false;
    const again = createLedgerBacklog({ dir: join(dir, 'backlog'), issue: issuer.issue, retryMs: 60_000 });
    open.push(again);
    expect(again.size()).toBe(1);
    await again.drain();
    const third = createLedgerBacklog({ dir: join(dir, 'backlog'), issue: issuer.issue, retryMs: 60_000 });
    open.push(third);
    expect([again.size(), third.size(), ledger.head().treeSize]).toEqual([0, 0, 1]);
  });

  it('a receipt that fails after its entry was appended is not recorded again', async () => {
    const dir = freshDir();
    const { faulty, state } = await faultyLedger(dir);
    state.refusing = false;
    const issuer = createReceiptIssuer({
      ledger: faulty,
      service: 's',
      serviceVersion: '1',
      baseUrl: () => 'http://h',
      publicKey: 'x',
      sign: () => Promise.reject(new Error('pool down')),
    });
    const backlog = createLedgerBacklog({ dir: join(dir, 'backlog'), issue: issuer.issue, retryMs: 60_000 });
    open.push(backlog);
    await expect(withLedgerBacklog(issuer, backlog, () => undefined).issue(answer)).rejects.toThrow(/pool down/);
    expect(backlog.size()).toBe(0);
  });
});
