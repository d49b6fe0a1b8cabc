/**
 * Child process for the crash test: appends to the ledger in `argv[2]` forever, keeping
 * `argv[3]` appends in flight, and prints each index on its own line once its append resolved
 * (i.e. once it is durable). The parent SIGKILLs it at a random moment.
 */
import { createLedger } from '../../src/ledger/ledger.ts';
import { sha256Hex } from '../../src/ledger/merkle-hash.ts';

const dir = process.argv[2]!;
const inFlight = Number(process.argv[3] ?? '8');
const ledger = await createLedger({ dir });
process.stdout.write(`open ${ledger.openReport.entries}\n`);

async function worker(w: number): Promise<never> {
  for (let i = 0; ; i++) {
    const r = await ledger.append({
      kind: 'payment',
      endpoint: '/v1/smri',
      priceUsdcUnits: 10000,
      network: 'eip155:8453',
      receiptSha256: sha256Hex(`w${w}-${i}`),
    });
    process.stdout.write(`${r.index}\n`);
  }
}
await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
