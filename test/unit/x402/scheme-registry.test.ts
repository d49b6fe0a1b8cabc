import { describe, expect, it } from 'vitest';
import { createSchemeRegistry, networkMatches, type SchemeFacilitator } from '../../../src/x402/flow/scheme-registry.ts';

const facilitator = (scheme: string, network: string): SchemeFacilitator => ({
  scheme,
  network,
  settle: () => Promise.reject(new Error('not called here')),
  payerOf: () => '',
});

describe('scheme registry', () => {
  it('matches a network exactly, or every network of a namespace', () => {
    expect(networkMatches('eip155:8453', 'eip155:8453')).toBe(true);
    expect(networkMatches('eip155:8453', 'eip155:84532')).toBe(false);
    expect(networkMatches('solana:*', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe(true);
    expect(networkMatches('solana:*', 'solanax:1')).toBe(false);
  });

  it('finds the facilitator of a scheme and network, and says why when there is none', () => {
    const svm = facilitator('exact', 'solana:*');
    const evm = facilitator('exact', 'eip155:8453');
    const channels = facilitator('batch-settlement', 'eip155:8453');
    const find = createSchemeRegistry([svm, evm, channels]);
    expect(find('exact', 'solana:devnet')).toEqual({ ok: true, facilitator: svm });
    expect(find('exact', 'eip155:8453')).toEqual({ ok: true, facilitator: evm });
    expect(find('batch-settlement', 'eip155:8453')).toEqual({ ok: true, facilitator: channels });
    expect(find('batch-settlement', 'solana:devnet')).toMatchObject({ ok: false, reason: 'invalid_network' });
    expect(find('exact', 'eip155:1')).toEqual({ ok: false, reason: 'invalid_network', message: 'no settlement path is configured for eip155:1' });
    expect(createSchemeRegistry([svm])('batch-settlement', 'eip155:8453')).toMatchObject({ ok: false, reason: 'unsupported_scheme' });
  });
});
