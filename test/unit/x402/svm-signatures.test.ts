/**
 * What the Solana scheme's signature tasks carry to a worker: the message and the payer's
 * signatures as their own bytes, not views into the decoded transaction's whole buffer (which
 * `postMessage` would copy whole, each task).
 */
import { describe, expect, it } from 'vitest';
import type { WireTransaction } from '../../../src/chain/solana/svm-wire.ts';
import { createSvmSignatures, type SvmPoolTasks } from '../../../src/x402/exact-svm/svm-signatures.ts';
import type { PaymentPayload } from '../../../src/x402/types/x402-types.ts';

/** Bytes that span their buffer exactly: what crosses to a worker is then just them. */
const spansItsBuffer = (bytes: Uint8Array) => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

function transaction(): WireTransaction {
  // One buffer, as a decoded wire transaction is: two signatures, then the message.
  const wire = new Uint8Array(8192);
  wire.fill(7, 1, 129);
  wire.fill(9, 129, 129 + 300);
  return {
    numRequiredSignatures: 2,
    signatures: [wire.subarray(1, 65), wire.subarray(65, 129)],
    messageBytes: wire.subarray(129, 129 + 300),
    staticAccounts: ['11111111111111111111111111111111', 'So11111111111111111111111111111111111111112'],
  } as unknown as WireTransaction;
}

describe('Solana signature tasks', () => {
  it("send the message and the payer's signature as their own bytes, equal to the transaction's", async () => {
    const inputs: Array<{ name: string; input: unknown }> = [];
    const pool = {
      runTask: async (name: keyof SvmPoolTasks, input: unknown) => {
        inputs.push({ name, input });
        return (name === 'signEd25519' ? new Uint8Array(64) : [true]) as never;
      },
    };
    const signatures = createSvmSignatures(pool);
    const tx = transaction();
    expect(await signatures.signaturesValid(tx, new AbortController().signal)).toBe(true);
    await signatures.cosign({} as PaymentPayload, tx, new AbortController().signal);
    const [verify, sign] = inputs as unknown as [
      { input: { checks: Array<{ message: Uint8Array; signature: Uint8Array }> } },
      { input: { message: Uint8Array } },
    ];
    // One payer signature: the task the event loop may run itself while the pool idles.
    expect(inputs.map((i) => i.name)).toEqual(['verifyEd25519Few', 'signEd25519']);
    const check = verify.input.checks[0]!;
    expect(spansItsBuffer(check.message) && spansItsBuffer(check.signature) && spansItsBuffer(sign.input.message)).toBe(true);
    expect(check.message).toEqual(tx.messageBytes);
    expect(check.signature).toEqual(tx.signatures[1]);
    expect(sign.input.message).toEqual(tx.messageBytes);
  });
});
