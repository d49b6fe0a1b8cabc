/** A channel config for unit tests that never touch a chain: every party and the token at one address. */
export function oneAddressChannelConfig(address: string) {
  return {
    payer: address,
    payerAuthorizer: address,
    receiver: address,
    receiverAuthorizer: address,
    token: address,
    withdrawDelay: 900,
    salt: `0x${'00'.repeat(32)}`,
  };
}
