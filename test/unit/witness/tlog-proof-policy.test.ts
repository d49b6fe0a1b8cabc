/**
 * The offline proof's two inputs read strictly: the tlog-proof text (round trip, and every
 * malformed form a reason, never a throw) and the policy file (an unknown field, a key of the
 * wrong kind, a quorum above the witnesses are refused, so a typo never weakens the check); and
 * the service's --witness option (URL=VKEY, a URL holding `=` or credentials, never echoed).
 */
import { describe, expect, it } from 'vitest';
import { formatTlogProof, parseTlogProof } from '../../../src/receipt-checks/tlog-proof.ts';
import { loadConfig } from '../../../src/config.ts';
import { cosignerKey, encodeCosignerKey } from '../../../src/tlog/cosignature.ts';
import { publicKeyOfSeed } from '../../../src/receipts/identity.ts';
import { witnessLabel } from '../../../src/service/witness-stack.ts';
import { parseTlogPolicy } from '../../../src/witness/tlog-policy.ts';
import { createTestLog, seedOf } from '../../helpers/tlog-fixture.ts';

const log = createTestLog();
const W1 = encodeCosignerKey(cosignerKey('witness.test/w1', publicKeyOfSeed(seedOf('w1'))));
const W2 = encodeCosignerKey(cosignerKey('witness.test/w2', publicKeyOfSeed(seedOf('w2'))));

describe('tlog-proof text', () => {
  it('round-trips index, extra data, proof hashes and the checkpoint verbatim', async () => {
    log.append('a', 'b', 'c');
    const checkpoint = await log.checkpoint();
    const proof = { index: 2, extra: Buffer.from('{"index":2}'), proof: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)], checkpoint };
    const text = formatTlogProof(proof);
    expect(text.startsWith('c2sp.org/tlog-proof@v1\nextra eyJpbmRleCI6Mn0=\nindex 2\nAQEB')).toBe(true);
    const parsed = parseTlogProof(text);
    expect(parsed.ok && { ...parsed.proof, extra: Buffer.from(parsed.proof.extra!).toString() }).toEqual({ ...proof, extra: '{"index":2}' });
    expect(parseTlogProof(formatTlogProof({ ...proof, extra: null }))).toMatchObject({ ok: true, proof: { extra: null } });
  });

  it('gives a reason for every malformed proof', () => {
    const bad = [
      '',
      'c2sp.org/tlog-proof@v2\nindex 0\n\ncp\n',
      'c2sp.org/tlog-proof@v1\nindex 01\n\ncp\n',
      'c2sp.org/tlog-proof@v1\nextra !!\nindex 0\n\ncp\n',
      'c2sp.org/tlog-proof@v1\nindex 0\nAAAA\n\ncp\n',
      'c2sp.org/tlog-proof@v1\nindex 0\ncp\n',
      `c2sp.org/tlog-proof@v1\nindex 0\n${`${Buffer.alloc(32).toString('base64')}\n`.repeat(64)}\ncp\n`,
    ];
    for (const text of bad) expect(parseTlogProof(text).ok, JSON.stringify(text.slice(0, 60))).toBe(false);
  });
});

describe('the policy file', () => {
  it('reads the log key, the origin (default: its name), the witnesses and the quorum (default: all)', () => {
    const parsed = parseTlogPolicy(JSON.stringify({ log: log.vkey, witnesses: [W1, W2] }));
    expect(parsed.ok && [parsed.policy.origin, parsed.policy.witnesses.map((w) => w.name), parsed.policy.quorum]).toEqual([
      'intel.example/test-log',
      ['witness.test/w1', 'witness.test/w2'],
      2,
    ]);
    const named = parseTlogPolicy(JSON.stringify({ log: log.vkey, origin: 'other.example/log', witnesses: [W1], quorum: 0 }));
    expect(named.ok && [named.policy.origin, named.policy.quorum]).toEqual(['other.example/log', 0]);
  });

  it('refuses what could weaken the check', () => {
    const bad: unknown[] = [
      'not json',
      [],
      { witnesses: [W1] },
      { log: W1 },
      { log: log.vkey, witnesses: [log.vkey] },
      { log: log.vkey, witnesses: [W1, W1] },
      { log: log.vkey, witnesses: [W1], quorum: 2 },
      { log: log.vkey, witnesses: [W1], quorum: -1 },
      { log: log.vkey, witnesses: [W1], qourum: 1 },
      { log: log.vkey, origin: '' },
    ];
    for (const doc of bad) expect(parseTlogPolicy(typeof doc === 'string' ? doc : JSON.stringify(doc)).ok, JSON.stringify(doc)).toBe(false);
  });
});

describe('--witness URL=VKEY', () => {
  const base = ['--data-dir', '/tmp/unused'];
  it('reads repeated witnesses (a URL may hold =), quorum defaulting to all of them', () => {
    const config = loadConfig({}, [...base, '--witness', `http://127.0.0.1:1/w?a=b=${W1}`, '--witness', `https://w2.example=${W2}`]);
    expect(config.witnesses).toEqual([
      { url: 'http://127.0.0.1:1/w?a=b', vkey: W1 },
      { url: 'https://w2.example', vkey: W2 },
    ]);
    expect(config.witnessQuorum).toBe(2);
    expect(loadConfig({ WITNESSES: `http://a.example=${W1} http://b.example=${W2}`, WITNESS_QUORUM: '1' }, base)).toMatchObject({ witnessQuorum: 1 });
  });

  it('never echoes a witness URL (it may hold credentials), and refuses a quorum above the witnesses', () => {
    const secret = 'http://user:s3cret@w.example/path';
    expect(() => loadConfig({}, [...base, '--witness', `${secret}=not-a-vkey`])).toThrow(/entry 1 must be URL=VKEY/);
    try {
      loadConfig({}, [...base, '--witness', `${secret}=not-a-vkey`]);
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('s3cret');
    }
    expect(() => loadConfig({}, [...base, '--witness', `http://a.example=${W1}`, '--witness-quorum', '2'])).toThrow(/more than the 1 witness/);
    expect(witnessLabel('https://user:s3cret@w.example:8443/submit?token=x')).toBe('https://w.example:8443');
  });
});
