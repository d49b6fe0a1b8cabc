/**
 * The moves of a payer attacking early answers (docs/security.md, "Solana early answers"), for the
 * adversarial tests over the held-send RPC (held-send-rpc.ts): calls through the official x402 SVM
 * client whose transactions the RPC holds, the payer draining its token account straight to the
 * chain before they land, and the early answers counted from each 200's PAYMENT-RESPONSE.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { HeldSendRpc } from './held-send-rpc.ts';
import { officialSvmFetch } from './official-svm-client.ts';
import { buildPaymentTx, rpcCall, type TestPayer, tokenBalance } from './svm-payer.ts';

export interface Chain {
  readonly rpcUrl: string;
  readonly stablecoinMint: string;
}

/** Whether a paid 200 was answered early (its settlement only submitted). */
export function answeredEarly(res: Response): boolean {
  if (res.status !== 200) return false;
  const header = res.headers.get('payment-response');
  return header !== null && (decodePaymentResponseHeader(header).extra as { settlement?: string } | undefined)?.settlement === 'submitted';
}

/** The payer moves its whole balance to `to` in a transaction of its own (it pays the fee), straight to the chain. */
export async function drain(chain: Chain, payer: TestPayer, to: string): Promise<void> {
  const { value } = await rpcCall<{ value: { blockhash: string } }>(chain.rpcUrl, 'getLatestBlockhash', [{ commitment: 'processed' }]);
  const amount = await tokenBalance(chain.rpcUrl, payer.signer.address, chain.stablecoinMint);
  const wire = await buildPaymentTx({
    payer,
    feePayer: payer.signer.address,
    mint: chain.stablecoinMint,
    payTo: to,
    amount,
    blockhash: value.blockhash,
    arrange: ({ transfer }) => [transfer],
  });
  await rpcCall(chain.rpcUrl, 'sendTransaction', [wire, { encoding: 'base64' }]);
}

/**
 * One round of the attack: each payer calls `url` `calls` times at once with its transactions held;
 * once every one is held (the early ones answered by then), each drains its account and the held
 * transactions go on to the chain, where they fail. Resolves with each payer's answers.
 */
export async function heldRound(
  chain: Chain,
  rpc: HeldSendRpc,
  payers: readonly TestPayer[],
  url: string,
  calls: number,
  sink: string,
): Promise<Map<string, Response[]>> {
  for (const p of payers) rpc.only.add(p.signer.address);
  rpc.holding = true;
  const answers = payers.map((p) => {
    const pay = officialSvmFetch(p, chain);
    return Promise.all(Array.from({ length: calls }, () => pay(url)));
  });
  await rpc.heldAtLeast(payers.length * calls);
  for (const p of payers) await drain(chain, p, sink);
  rpc.holding = false;
  rpc.only.clear();
  await rpc.release();
  const all = await Promise.all(answers);
  return new Map(payers.map((p, i) => [p.signer.address, all[i]!]));
}
