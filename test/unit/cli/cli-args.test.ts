/**
 * The CLI's pure parts: the command line as data, endpoint paths and parameters checked against
 * the catalog before any request, the service's base URL, and amounts typed in dollars turned
 * into exact base units and compared with what a 402 asks.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { CALL_OPTIONS } from '../../../src/cli/commands/call-command.ts';
import { parseArgs, SWITCHES } from '../../../src/cli/cli-args.ts';
import { CliError, EXIT } from '../../../src/cli/cli-error.ts';
import { buildEndpointRequest, findEndpoint } from '../../../src/cli/endpoint-request.ts';
import { PREVIEW_OPTIONS } from '../../../src/cli/commands/preview-command.ts';
import { DEFAULT_SERVICE_URL, isLoopbackUrl, resolveServiceUrl, serviceHref } from '../../../src/cli/service-url.ts';
import { formatUnits, parseUnits, SOL_DECIMALS, USDC_DECIMALS, withinMaxPrice } from '../../../src/cli/usd-amount.ts';

/** The CliError `fn` throws. */
function thrown(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error('expected a CliError');
}

describe('parseArgs', () => {
  it('splits positionals, --name value, --name=value and switches, keeping the order', () => {
    const args = parseArgs(['call', '/v1/epoch', '--rate', 'both', '--max-price=0.05', '--json', '-h', '--', '--not-an-option']);
    expect(args.positionals).toEqual(['call', '/v1/epoch', '--not-an-option']);
    expect([...args.options]).toEqual([
      ['rate', 'both'],
      ['max-price', '0.05'],
      ['json', true],
      ['help', true],
    ]);
  });

  it('keeps values that start with one dash (negative numbers) and empty values after =', () => {
    expect([...parseArgs(['--n', '-5', '--action='])!.options]).toEqual([
      ['n', '-5'],
      ['action', ''],
    ]);
  });

  it('refuses a missing value, a repeated option, a value on a switch and a malformed name (usage errors)', () => {
    for (const argv of [['--rate'], ['--rate', '--json'], ['--rate', 'a', '--rate', 'b'], ['--json=yes'], ['--=x'], ['--a b', 'x']]) {
      const err = thrown(() => parseArgs(argv));
      expect(err.exit).toBe(EXIT.usage);
      expect(err.code).toBe('usage');
    }
    expect(thrown(() => parseArgs(['--rate', 'a', '--rate', 'b'])).message).toBe('--rate is given more than once');
  });

  it('no catalog parameter is named like a CLI option (it could not be passed as --<param>)', () => {
    const reserved = new Set<string>([...CALL_OPTIONS, ...PREVIEW_OPTIONS, ...SWITCHES]);
    const clashes = CATALOG.flatMap((e) => Object.keys((e.query as unknown as { properties: object }).properties)).filter((p) => reserved.has(p));
    expect(clashes).toEqual([]);
  });
});

describe('endpoint requests against the catalog', () => {
  it('names an endpoint by full path, without the slash, or by its last part', () => {
    for (const name of ['/v1/epoch', 'v1/epoch', 'epoch']) expect(findEndpoint(name)?.path).toBe('/v1/epoch');
    expect(findEndpoint('lending/markets')?.path).toBe('/v1/lending/markets');
    expect(findEndpoint('/v1/nope')).toBeNull();
  });

  it('builds the exact path and query, merging a query written into the path', () => {
    const req = buildEndpointRequest('/v1/decision?mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', new Map([['policy', 'anti-rug']]));
    expect(req.pathAndQuery).toBe('/v1/decision?mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263&policy=anti-rug');
    expect(buildEndpointRequest('epoch', new Map()).pathAndQuery).toBe('/v1/epoch');
  });

  it('percent-encodes what needs it (a + of base64 stays a +)', () => {
    const tx = CATALOG.find((e) => e.path === '/v1/simulate')!.example.tx!;
    const req = buildEndpointRequest('/v1/simulate', new Map([['tx', tx]]));
    expect(new URL(`http://x${req.pathAndQuery}`).searchParams.get('tx')).toBe(tx);
  });

  it('an unknown path lists the endpoints; an unknown parameter lists the parameters; a bad value names it', () => {
    const unknownPath = thrown(() => buildEndpointRequest('/v1/nope', new Map()));
    expect(unknownPath.exit).toBe(EXIT.usage);
    expect(unknownPath.message).toContain('/v1/epoch ($0.001)');
    const unknownParam = thrown(() => buildEndpointRequest('/v1/epoch', new Map([['foo', '1']])));
    expect(unknownParam.message).toContain('has no parameter "foo"');
    expect(unknownParam.message).toContain('--rate <primary|alt|both>  (optional, default both)');
    expect(unknownParam.details).toEqual({ param: 'foo' });
    const badValue = thrown(() => buildEndpointRequest('/v1/epoch', new Map([['rate', 'fast']])));
    expect(badValue.message).toBe('/v1/epoch: rate must be one of primary, alt, both; got "fast"');
    expect(thrown(() => buildEndpointRequest('/v1/smri', new Map())).message).toBe('/v1/smri: mint is required');
    expect(thrown(() => buildEndpointRequest('/v1/epoch?rate=alt', new Map([['rate', 'both']]))).message).toContain('more than once');
  });
});

describe('service base URL', () => {
  it('is --url, else $X402_INTEL_URL, else the local default, without a trailing slash', () => {
    expect(resolveServiceUrl(undefined, {})).toBe(DEFAULT_SERVICE_URL);
    expect(resolveServiceUrl(undefined, { X402_INTEL_URL: 'https://intel.example/' })).toBe('https://intel.example');
    expect(resolveServiceUrl(undefined, { X402_INTEL_URL: '  ' })).toBe(DEFAULT_SERVICE_URL);
    expect(resolveServiceUrl('http://127.0.0.1:9999/api//', { X402_INTEL_URL: 'https://intel.example' })).toBe('http://127.0.0.1:9999/api');
    expect(serviceHref('https://intel.example/api', '/v1/epoch?rate=alt')).toBe('https://intel.example/api/v1/epoch?rate=alt');
  });

  it('refuses anything but a plain http(s) base URL (usage errors naming the source)', () => {
    expect(thrown(() => resolveServiceUrl('ftp://x', {})).message).toBe('--url must be an http:// or https:// URL');
    expect(thrown(() => resolveServiceUrl(undefined, { X402_INTEL_URL: 'nope' })).message).toContain('$X402_INTEL_URL "nope" is not a URL');
    expect(thrown(() => resolveServiceUrl('http://u:p@h', {})).exit).toBe(EXIT.usage);
    expect(thrown(() => resolveServiceUrl('http://h/?a=1', {})).message).toContain('no query');
  });

  it('trusts an embedded localnet only on this machine', () => {
    for (const url of ['http://127.0.0.1:8402', 'http://localhost:1', 'http://[::1]:8402', 'http://127.8.0.1']) expect(isLoopbackUrl(url)).toBe(true);
    for (const url of ['https://intel.example', 'http://10.0.0.1:8402', 'http://127.0.0.1.example.com']) expect(isLoopbackUrl(url)).toBe(false);
  });
});

describe('amounts and the price cap', () => {
  it('turns decimal dollars and SOL into exact base units', () => {
    expect(parseUnits('0.05', USDC_DECIMALS, '--max-price')).toBe(50_000n);
    expect(parseUnits('$0.1', USDC_DECIMALS, '--max-price')).toBe(100_000n);
    expect(parseUnits('.000001', USDC_DECIMALS, '--max-price')).toBe(1n);
    expect(parseUnits('10', USDC_DECIMALS, '--usdc')).toBe(10_000_000n);
    expect(parseUnits('1.50', SOL_DECIMALS, '--sol')).toBe(1_500_000_000n);
    expect(parseUnits('0', USDC_DECIMALS, '--usdc')).toBe(0n);
    expect(formatUnits(1000n, USDC_DECIMALS)).toBe('0.001');
    expect(formatUnits(10_000_000n, USDC_DECIMALS)).toBe('10');
  });

  it('refuses negative, empty, non-numeric and finer-than-a-unit amounts', () => {
    for (const text of ['-1', '', '.', 'abc', '1e3', '0x10', '1.2.3'])
      expect(thrown(() => parseUnits(text, USDC_DECIMALS, '--max-price')).exit).toBe(EXIT.usage);
    expect(thrown(() => parseUnits('0.0000001', USDC_DECIMALS, '--max-price')).message).toContain('more than 6 decimals');
  });

  it('pays only an integer amount at or under the cap', () => {
    expect(withinMaxPrice('1000', 1000n)).toBe(true);
    expect(withinMaxPrice('1001', 1000n)).toBe(false);
    expect(withinMaxPrice('0', 0n)).toBe(true);
    for (const amount of ['1e3', '-1', '', ' 1', '1.5', 1000, null, undefined, '9'.repeat(31)]) expect(withinMaxPrice(amount, 10n ** 40n)).toBe(false);
  });
});
