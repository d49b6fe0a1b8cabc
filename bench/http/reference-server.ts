/**
 * The reference the 402 benchmark compares the service with: the official `@x402/express`
 * middleware guarding the same route with the same terms (price, networks, assets, payTo, fee
 * payer, timeout). Its facilitator's `/supported` is answered by an HTTP stub in this same process,
 * so nothing leaves the machine. Like hello-server.ts it is a measuring stick, not service code.
 *
 * The Solana scheme is registered without an RPC URL: given one, the official scheme fetches a
 * blockhash from the RPC on every 402, which would make the reference slower still; without one
 * it answers from memory, its fastest configuration.
 *
 * Run as a child by the benchmark: `node --import tsx bench/http/reference-server.ts '<terms JSON>'`;
 * prints `facilitator <url>` and `listening <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import express from 'express';

/** The terms both servers offer for the benchmarked route. */
export interface ReferenceTerms {
  readonly path: string;
  readonly description: string;
  /** Atomic units of the stablecoin (6 decimals on both networks). */
  readonly amount: string;
  readonly maxTimeoutSeconds: number;
  readonly svm: { readonly network: string; readonly asset: string; readonly payTo: string; readonly feePayer: string };
  readonly evm: { readonly network: string; readonly asset: string; readonly payTo: string; readonly name: string; readonly version: string };
}

/** The `/supported` answer of the stub facilitator: exact on both networks, our fee payer on Solana. */
export function supportedAnswer(terms: ReferenceTerms): unknown {
  return {
    kinds: [
      { x402Version: 2, scheme: 'exact', network: terms.svm.network, extra: { feePayer: terms.svm.feePayer } },
      { x402Version: 2, scheme: 'exact', network: terms.evm.network },
    ],
    extensions: [],
    signers: { [terms.svm.network]: [terms.svm.feePayer], [terms.evm.network]: [] },
  };
}

function listen(server: { listen(port: number, host: string, cb: () => void): unknown }, port: number): Promise<void> {
  return new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}

/** Starts the stub facilitator and the guarded express app; resolves with both ports. */
export async function startReferenceServer(terms: ReferenceTerms, port = 0): Promise<{ port: number; facilitatorUrl: string; close(): void }> {
  const supported = JSON.stringify(supportedAnswer(terms));
  const facilitator = createServer((req, res) => {
    if (req.url !== '/supported') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(supported);
  });
  await listen(facilitator, 0);
  const facilitatorUrl = `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`;
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl }))
    .register(terms.svm.network as `${string}:${string}`, new ExactSvmScheme())
    .register(terms.evm.network as `${string}:${string}`, new ExactEvmScheme());
  const accepts = [
    {
      scheme: 'exact',
      network: terms.svm.network as `${string}:${string}`,
      payTo: terms.svm.payTo,
      price: { amount: terms.amount, asset: terms.svm.asset },
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
    },
    {
      scheme: 'exact',
      network: terms.evm.network as `${string}:${string}`,
      payTo: terms.evm.payTo,
      price: { amount: terms.amount, asset: terms.evm.asset, extra: { name: terms.evm.name, version: terms.evm.version } },
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
    },
  ];
  const app = express();
  app.use(paymentMiddleware({ [`GET ${terms.path}`]: { accepts, description: terms.description, mimeType: 'application/json' } }, resourceServer));
  app.get(terms.path, (_req, res) => void res.json({ paid: true }));
  const server = createServer(app);
  await listen(server, port);
  return {
    port: (server.address() as AddressInfo).port,
    facilitatorUrl,
    close() {
      server.close();
      facilitator.close();
    },
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const running = await startReferenceServer(JSON.parse(process.argv[2]!) as ReferenceTerms);
  console.log(`facilitator ${running.facilitatorUrl}`);
  console.log(`listening ${running.port}`);
  process.on('SIGTERM', () => {
    running.close();
    process.exit(0);
  });
}
