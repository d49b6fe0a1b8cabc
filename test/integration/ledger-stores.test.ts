/**
 * The Ledger contract (src/ledger/ledger.ts: one hash chain and one Merkle tree of the paid calls
 * and audit events), one suite run against both ledgers: the file WAL and PostgreSQL
 * (pg-ledger.ts), each in a place of its own. What only one of them does is tested beside it: the
 * WAL's torn tail, corruption, group commit and a kill -9 in test/unit/ledger/ledger.test.ts; instances
 * sharing the database and the database away in test/integration/pg-ledger.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerDraft } from '../../src/ledger/ledger-entry.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { sha256Hex } from '../../src/ledger/merkle-hash.ts';
import { verifyConsistency, verifyInclusionRfc6962, verifyInclusionSpec } from '../../src/ledger/merkle-verify.ts';
import { createPgLedger } from '../../src/ledger/pg-ledger.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';
import { AUDIT_DRAFT, paymentDraft, verifyChain } from '../helpers/ledger-drafts.ts';

const backings = useStoreBackings('ledger-stores');
type NodeStore = 'file' | 'memory';

/** A new place for one ledger, and how to open it there (again: a restart, or another instance). */
const placeFor = async (kind: StoreKind, nodeStore: NodeStore = 'file') => {
  const open = await backings.placeAlone<Promise<Ledger>>(kind, {
    file: (dir) => createLedger({ dir, nodeStore }),
    postgres: (db, _options, dir) => createPgLedger({ db, viewDir: dir, nodeStore }),
  });
  return () => open();
};

async function filled(kind: StoreKind, n: number, nodeStore?: NodeStore) {
  const open = await placeFor(kind, nodeStore);
  const ledger = await open();
  await Promise.all(Array.from({ length: n }, (_, i) => ledger.append(i % 10 === 9 ? AUDIT_DRAFT : paymentDraft(i))));
  return { ledger, open };
}

/** What a reader answers, to compare two openings of one ledger. */
const answers = (l: Ledger) => ({
  head: l.head(),
  recent: l.recent(20),
  e: l.entry(31),
  p: l.proof(31),
  r: l.proof(12, 40, 'rfc6962'),
  c: l.consistency(17, 57),
});

describe.each(STORE_KINDS)('the ledger (%s)', (kind) => {
  it('chains entries, exposes only the contract entry fields and survives a reopen unchanged', async () => {
    const { ledger, open } = await filled(kind, 57);
    const all = ledger.recent(1000);
    expect(all).toHaveLength(57);
    verifyChain(all);
    expect(Object.keys(all[0]!)).toEqual(['index', 'time', 'kind', 'endpoint', 'priceUsdcUnits', 'network', 'receiptSha256', 'prevHash', 'entrySha256']);
    expect(Object.keys(all[9]!)).toEqual(['index', 'time', 'kind', 'event', 'prevHash', 'entrySha256']);
    const before = answers(ledger);
    expect(before.head).toMatchObject({ treeSize: 57, chainHead: all[56]!.entrySha256, lastAppendAt: all[56]!.time });
    await ledger.close();
    const again = await open();
    expect(again.openReport).toMatchObject({ entries: 57, tornTail: null });
    expect(answers(again)).toEqual(before);
    const next = await again.append(paymentDraft(57));
    expect(next).toEqual({ index: 57, entrySha256: again.entry(57)!.entrySha256, chainHead: again.head().chainHead, treeSize: 58 });
    expect(again.entry(57)!.prevHash).toBe(all[56]!.entrySha256);
    await again.close();
  });

  it('answers proofs that verify, and refuses out-of-range requests as data', async () => {
    const { ledger } = await filled(kind, 23, 'memory');
    for (let i = 0; i < 23; i++) {
      const p = ledger.proof(i);
      if (!p.ok) throw new Error(p.reason);
      expect(p.value.leaf).toBe(ledger.entry(i)!.entrySha256);
      expect(p.value.merkleRootSha256).toBe(ledger.head().merkleRoot);
      expect(verifyInclusionSpec(p.value).ok).toBe(true);
      const r = ledger.proof(i, 23, 'rfc6962');
      expect(r.ok && verifyInclusionRfc6962(r.value).ok && r.value.rootHash === ledger.head().merkleRootRfc6962).toBe(true);
    }
    const c = ledger.consistency(5);
    expect(c.ok && verifyConsistency(c.value).ok).toBe(true);
    expect(ledger.proof(23)).toMatchObject({ ok: false });
    expect(ledger.proof(3, 24)).toMatchObject({ ok: false });
    expect(ledger.proof(-1)).toMatchObject({ ok: false });
    expect(ledger.consistency(9, 5)).toMatchObject({ ok: false });
    expect(ledger.entry(23)).toBeNull();
    await ledger.close();
  });

  it('lets the receipt hash depend on the slot, and refuses entries that would leak a query', async () => {
    const ledger = await (await placeFor(kind, 'memory'))();
    await ledger.append(AUDIT_DRAFT);
    const seen: unknown[] = [];
    await ledger.append({
      ...paymentDraft(0),
      receiptSha256: (slot) => {
        seen.push(slot);
        return sha256Hex(JSON.stringify(slot));
      },
    } as LedgerDraft);
    expect(seen).toEqual([{ index: 1, prevHash: ledger.entry(0)!.entrySha256 }]);
    await expect(ledger.append({ ...paymentDraft(1), endpoint: '/v1/smri?mint=abc' } as LedgerDraft)).rejects.toThrow(/bare path/);
    // A refused draft does not consume a slot.
    expect((await ledger.append(AUDIT_DRAFT)).index).toBe(2);
    await ledger.close();
  });

  it('refuses appends once closed', async () => {
    const ledger = await (await placeFor(kind, 'memory'))();
    await ledger.append(AUDIT_DRAFT);
    await ledger.close();
    await expect(ledger.append(AUDIT_DRAFT)).rejects.toMatchObject({ code: 'shutting_down' });
  });
});
