import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { canonicalCheckpoint, createCheckpoint, signEd25519, verifyCheckpoint, type SignedCheckpoint } from '../../../src/tlog/checkpoint.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const keys = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(7));
const publicKey = bs58.encode(keys.publicKey);
const head = { treeSize: 42, merkleRoot: sha256Hex('spec'), merkleRootRfc6962: sha256Hex('rfc'), chainHead: sha256Hex('head') };
const config = { service: 'solana-x402-intel', publicKey, sign: (m: Uint8Array) => signEd25519(keys.secretKey, m) };

describe('signed checkpoints', () => {
  it('signs the canonical JSON so that tweetnacl and bs58 alone verify it', async () => {
    const cp = await createCheckpoint(config, head, new Date('2025-01-02T03:04:05.678Z'));
    expect(canonicalCheckpoint(cp)).toBe(
      `{"schema":"solana-x402-intel.checkpoint.v1","treeSize":42,"rootHash":{"rfc6962":"${head.merkleRootRfc6962}","spec":"${head.merkleRoot}"},"chainHead":"${head.chainHead}","timestamp":"2025-01-02T03:04:05.678Z"}`,
    );
    const { signature, ...unsigned } = cp;
    const message = new TextEncoder().encode(JSON.stringify(unsigned));
    expect(nacl.sign.detached.verify(message, bs58.decode(signature.signatureBase58), bs58.decode(signature.signedBy))).toBe(true);
    // ed25519 is deterministic: node:crypto and tweetnacl produce the same bytes.
    expect(bs58.encode(nacl.sign.detached(message, keys.secretKey))).toBe(signature.signatureBase58);
    expect(verifyCheckpoint(cp, publicKey)).toEqual({ ok: true });
  });

  it('fails after any change of a signed field, the signature or the signer', async () => {
    const cp = await createCheckpoint(config, head);
    const other = bs58.encode(nacl.sign.keyPair().publicKey);
    const sig = bs58.decode(cp.signature.signatureBase58);
    sig[5]! ^= 1;
    const bad: SignedCheckpoint[] = [
      { ...cp, treeSize: 43 },
      { ...cp, rootHash: { ...cp.rootHash, spec: sha256Hex('x') } },
      { ...cp, chainHead: sha256Hex('y') },
      { ...cp, timestamp: new Date(0).toISOString() },
      { ...cp, signature: { ...cp.signature, signatureBase58: bs58.encode(sig) } },
      { ...cp, signature: { ...cp.signature, signedBy: other } },
    ];
    for (const b of bad) expect(verifyCheckpoint(b).ok).toBe(false);
    expect(verifyCheckpoint(cp, other).ok).toBe(false);
  });
});
