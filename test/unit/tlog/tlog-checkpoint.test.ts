import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { RFC6962_HASHER } from '../../../src/ledger/merkle-hash.ts';
import { decodeVerifierKey, encodeVerifierKey, type NoteSigner, parseNote } from '../../../src/tlog/signed-note.ts';
import { formatCheckpointText, openCheckpoint, parseCheckpointText, signCheckpoint } from '../../../src/tlog/tlog-checkpoint.ts';

// Golden tree of Go's sumdb/tlog tests (FormatTree of size 123456789012 and RecordHash("hello world")).
const GO_TREE = 'go.sum database tree\n123456789012\nTszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0=\n';
// The example body of the C2SP tlog-checkpoint specification.
const SPEC_BODY = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';

const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(3));
const ORIGIN = 'intel.example/ledger';
const signer: NoteSigner = { keyName: ORIGIN, publicKey: pair.publicKey, sign: (m) => nacl.sign.detached(m, pair.secretKey) };
const logKey = (() => {
  const k = decodeVerifierKey(encodeVerifierKey(ORIGIN, pair.publicKey));
  if (!k.ok) throw new Error(k.reason);
  return k.value;
})();
const root = RFC6962_HASHER.leaf(Buffer.from('x'));

describe('checkpoint bodies (C2SP tlog-checkpoint)', () => {
  it("formats the body Go's tlog formats", () => {
    const rootHash = RFC6962_HASHER.leaf(Buffer.from('hello world'));
    expect(formatCheckpointText({ origin: 'go.sum database tree', treeSize: 123456789012, rootHash, extensions: [] })).toBe(GO_TREE);
  });

  it('parses the spec example and round-trips extension lines', () => {
    const parsed = parseCheckpointText(SPEC_BODY);
    expect(parsed.ok && parsed.value.origin).toBe('example.com/behind-the-sofa');
    expect(parsed.ok && parsed.value.treeSize).toBe(20852163);
    expect(parsed.ok && formatCheckpointText(parsed.value)).toBe(SPEC_BODY);
    const withExt = `${SPEC_BODY}ext one\next two\n`;
    const ext = parseCheckpointText(withExt);
    expect(ext.ok && ext.value.extensions).toEqual(['ext one', 'ext two']);
    expect(ext.ok && formatCheckpointText(ext.value)).toBe(withExt);
  });

  it('refuses malformed bodies', () => {
    const bad = [
      'origin\n12\n',
      `origin\n012\n${Buffer.from(root).toString('base64')}\n`,
      `origin\n-1\n${Buffer.from(root).toString('base64')}\n`,
      `origin\n1e3\n${Buffer.from(root).toString('base64')}\n`,
      `origin\n99999999999999999\n${Buffer.from(root).toString('base64')}\n`,
      'origin\n12\nAAAA\n',
      `origin\n12\n${Buffer.from(root).toString('base64')}`,
      `origin\n12\n${Buffer.from(root).toString('base64')}\n\nextension\n`,
      `\n12\n${Buffer.from(root).toString('base64')}\n`,
    ];
    for (const b of bad) expect(parseCheckpointText(b).ok, JSON.stringify(b)).toBe(false);
    expect(() => formatCheckpointText({ origin: 'a\nb', treeSize: 1, rootHash: root, extensions: [] })).toThrow();
    expect(() => formatCheckpointText({ origin: 'a', treeSize: 1.5, rootHash: root, extensions: [] })).toThrow();
  });

  it('signs and opens a checkpoint with the log key, keeping foreign signatures', async () => {
    const note = await signCheckpoint({ origin: ORIGIN, treeSize: 5, rootHash: root, extensions: [] }, [signer]);
    expect(note.startsWith(`${ORIGIN}\n5\n`)).toBe(true);
    const opened = openCheckpoint(note, logKey, ORIGIN);
    expect(opened.ok && opened.value.checkpoint.treeSize).toBe(5);
    expect(openCheckpoint(note, logKey, 'other.example/log')).toEqual({ ok: false, reason: 'checkpoint origin is not the expected log' });
    expect(openCheckpoint(note.replace('\n5\n', '\n6\n'), logKey).ok).toBe(false);
    const parsed = parseNote(note);
    expect(parsed.ok && parsed.value.signatures).toHaveLength(1);
  });
});
