/**
 * The fixture of the paid integration tests: the real service on a fresh embedded localnet and
 * data dir, a payer funded with the localnet stablecoin, and `fetch` that answers 402 challenges
 * with the official x402 SVM client. It registers its own beforeAll/afterAll, so a test file says
 * only which calls it pays for and what it expects of them.
 */
import { afterAll, beforeAll } from 'vitest';
import type { RunningService, ServiceOptions } from '../../src/service/service.ts';
import { officialSvmFetch } from './official-svm-client.ts';
import { fundedPayer, tokenBalance, type TestPayer } from './svm-payer.ts';
import type { TestLocalnetShape } from './localnet-traffic.ts';
import { startTestService, type TestService } from './test-service.ts';

/** Stablecoin base units the payer starts with: 10 USDC, enough for any file's paid calls. */
export const PAYER_START_UNITS = 10_000_000;
/** Starting the localnet and the service, then funding the payer, under a loaded machine. */
const START_TIMEOUT_MS = 120_000;

export type TestLocalnet = NonNullable<TestService['localnet']>;

export interface PaidServiceOptions {
  /** Handed to startService (a custom processor, handlers ...). */
  readonly service?: Partial<ServiceOptions>;
  readonly payerUnits?: number;
  /** The localnet's shape; no background traffic unless it says (localnet-traffic.ts). */
  readonly localnet?: TestLocalnetShape;
}

/** Accessors valid inside tests (the service starts in beforeAll). */
export interface PaidService {
  readonly url: string;
  readonly service: RunningService;
  readonly localnet: TestLocalnet;
  readonly payer: TestPayer;
  /** `fetch` that pays any 402 challenge from the payer. */
  readonly payFetch: typeof fetch;
  /** Pays for `pathAndQuery` (e.g. `/v1/epoch?rate=both`) on the service. */
  pay(pathAndQuery: string): Promise<Response>;
  /** The payer's stablecoin balance in base units. */
  payerBalance(): Promise<bigint>;
  /** The service's Solana pay-to stablecoin balance in base units. */
  payToBalance(): Promise<bigint>;
}

interface Started {
  readonly t: TestService;
  readonly payer: TestPayer;
  readonly payFetch: typeof fetch;
}

/** Starts the service, a funded payer and a paying `fetch` before this file's tests; stops them after. */
export function usePaidService(options: PaidServiceOptions = {}): PaidService {
  let started: Started | undefined;
  beforeAll(async () => {
    const t = await startTestService(options.service, [], options.localnet);
    const localnet = t.localnet!;
    const payer = await fundedPayer(localnet.urls.rpc, options.payerUnits ?? PAYER_START_UNITS);
    started = { t, payer, payFetch: officialSvmFetch(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint }) };
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await started?.t.close();
  });
  const get = (): Started => {
    if (!started) throw new Error('usePaidService: the paid service exists only inside tests (it starts in beforeAll)');
    return started;
  };
  const localnet = (): TestLocalnet => get().t.localnet!;
  const balanceOf = (owner: string) => tokenBalance(localnet().urls.rpc, owner, localnet().stablecoinMint);
  return {
    get url() {
      return get().t.url;
    },
    get service() {
      return get().t.service;
    },
    get localnet() {
      return localnet();
    },
    get payer() {
      return get().payer;
    },
    get payFetch() {
      return get().payFetch;
    },
    pay: (pathAndQuery) => get().payFetch(`${get().t.url}${pathAndQuery}`),
    payerBalance: () => balanceOf(get().payer.signer.address),
    payToBalance: () => balanceOf(get().t.service.terms.svm.payTo),
  };
}
