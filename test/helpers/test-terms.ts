/**
 * The seller's terms the unit tests build challenges from: `MAINNET_TERMS` with real-looking
 * addresses (mainnet USDC mints, a valid base58 payTo), for tests that read a 402 as a client
 * would; `PLACEHOLDER_TERMS` with readable stand-ins, for tests of decoding and matching.
 */
export const MAINNET_TERMS = {
  svm: {
    payTo: 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    feePayer: '11111111111111111111111111111111',
  },
  evm: { payTo: '0x1111111111111111111111111111111111111111', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' },
};

export const PLACEHOLDER_TERMS = {
  svm: {
    payTo: 'PayTo11111111111111111111111111111111111111',
    asset: 'Mint111111111111111111111111111111111111111',
    feePayer: 'FeePayer1111111111111111111111111111111111',
  },
  evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
};

/**
 * `PLACEHOLDER_TERMS` as the fixtures over the fake `exact` scheme (fake-exact-scheme.ts) sell:
 * its fee payer is the scheme's own `FakeFeePayer`; with a `receiverAuthorizer`, channels on too.
 */
export function fakeSchemeTerms(receiverAuthorizer?: string) {
  const svm = { ...PLACEHOLDER_TERMS.svm, feePayer: 'FakeFeePayer' };
  if (receiverAuthorizer === undefined) return { svm, evm: PLACEHOLDER_TERMS.evm };
  return { svm, evm: PLACEHOLDER_TERMS.evm, channel: { receiverAuthorizer, withdrawDelay: 86_400, minDepositCalls: 100 } };
}

/** The config of a channel its `payer` opens under `fakeSchemeTerms(receiverAuthorizer)` (salt zero). */
export function fakeSchemeChannel(payer: string, receiverAuthorizer: string) {
  const { payTo: receiver, asset: token } = PLACEHOLDER_TERMS.evm;
  return { payer, payerAuthorizer: payer, receiver, receiverAuthorizer, token, withdrawDelay: 86_400, salt: `0x${'00'.repeat(32)}` };
}
