/**
 * Trusted proxies are matched as addresses, whatever the text: an IPv6 or dual-stack proxy (uWS
 * writes its peer as eight padded groups, an IPv4 peer on a dual-stack socket as a mapped
 * address) is trusted like an IPv4 one, and a CIDR range trusts every address in it.
 */
import { describe, expect, it } from 'vitest';
import { canonicalIp, clientAddress, parseProxyEntry, trustedProxySet } from '../../../src/http/admission/client-address.ts';
import { loadConfig } from '../../../src/config.ts';

/** uWS's text of the IPv6 peer ::1 and of the IPv4 peer 127.0.0.1 on a dual-stack socket. */
const UWS_LOOPBACK6 = '0000:0000:0000:0000:0000:0000:0000:0001';
const UWS_MAPPED_LOOPBACK4 = '0000:0000:0000:0000:0000:ffff:7f00:0001';

describe('canonical addresses', () => {
  it('one address in any of its textual forms, IPv4-mapped ones as the IPv4 they map', () => {
    for (const form of ['::1', '0:0:0:0:0:0:0:1', UWS_LOOPBACK6, '0::0:1']) expect(canonicalIp(form)).toBe('0:0:0:0:0:0:0:1');
    for (const form of ['127.0.0.1', '::ffff:127.0.0.1', UWS_MAPPED_LOOPBACK4, '::FFFF:7F00:1']) expect(canonicalIp(form)).toBe('127.0.0.1');
    expect(canonicalIp('2001:DB8::A')).toBe('2001:db8:0:0:0:0:0:a');
    expect(canonicalIp('fe80::1%eth0')).toBe('fe80:0:0:0:0:0:0:1');
    for (const bad of ['', 'garbage', '1.2.3', '1.2.3.4:80', '[::1]', '::1::2']) expect(canonicalIp(bad)).toBeNull();
  });

  it('a proxy entry is an address or a CIDR range with a prefix the family allows', () => {
    expect(parseProxyEntry(' 10.0.0.0/8 ')).toEqual({ address: '10.0.0.0', prefix: 8 });
    expect(parseProxyEntry('::1')).toEqual({ address: '0:0:0:0:0:0:0:1', prefix: null });
    expect(parseProxyEntry('fd00::/128')).toEqual({ address: 'fd00:0:0:0:0:0:0:0', prefix: 128 });
    for (const bad of ['10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/8', 'fd00::/129', 'proxy.local']) expect(parseProxyEntry(bad)).toBeNull();
  });
});

describe('trusted proxies', () => {
  it('an IPv6 proxy is trusted in whatever form it is configured and the peer is written', () => {
    for (const configured of ['::1', '0:0:0:0:0:0:0:1']) {
      expect(clientAddress(UWS_LOOPBACK6, '198.51.100.7', trustedProxySet([configured]))).toBe('198.51.100.7');
    }
  });

  it('an IPv4 proxy is trusted when a dual-stack listener sees it as a mapped address', () => {
    expect(clientAddress(UWS_MAPPED_LOOPBACK4, '198.51.100.7', trustedProxySet(['127.0.0.1']))).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '198.51.100.7', trustedProxySet(['::ffff:127.0.0.1']))).toBe('198.51.100.7');
  });

  it('trusted hops are skipped in any form, and the client is named canonically', () => {
    const trusted = trustedProxySet(['10.0.0.1', '2001:db8::1']);
    expect(clientAddress('10.0.0.1', '2001:DB8:0:0:0:0:0:7, 2001:db8:0::1, ::ffff:10.0.0.1', trusted)).toBe('2001:db8:0:0:0:0:0:7');
  });

  it('a range trusts every address in it and nothing outside', () => {
    const trusted = trustedProxySet(['10.0.0.0/8', 'fd00::/8']);
    expect(clientAddress('10.200.3.4', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('0000:0000:0000:0000:0000:ffff:0a01:0203', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('fd12:0000:0000:0000:0000:0000:0000:0001', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('11.0.0.1', '198.51.100.7', trusted)).toBe('11.0.0.1');
    expect(clientAddress('10.1.1.1', '198.51.100.7, 10.9.9.9', trusted)).toBe('198.51.100.7');
  });

  it('the peer verdict kept for a run of requests follows the peer when it changes', () => {
    const trusted = trustedProxySet(['10.0.0.1']);
    expect(clientAddress('10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '198.51.100.7', trusted)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.1', '198.51.100.8', trusted)).toBe('198.51.100.8');
  });

  it('--trusted-proxies takes IPv6 addresses and CIDR ranges, and names what it refuses', () => {
    const base = ['--data-dir', '/tmp/x402-unused'];
    expect(loadConfig({}, [...base, '--trusted-proxies', '::1, 10.0.0.0/8']).trustedProxies).toEqual(['::1', '10.0.0.0/8']);
    expect(() => loadConfig({}, [...base, '--trusted-proxies', '10.0.0.0/40'])).toThrow(/10\.0\.0\.0\/40/);
  });
});
