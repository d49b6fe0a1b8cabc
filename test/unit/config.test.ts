import { describe, expect, it } from 'vitest';
import { helpText, loadConfig, OPTIONS, SOLANA_USDC_MINT } from '../../src/config.ts';
import { EVM_RPC_TIMEOUT_MS } from '../../src/chain/evm/evm-token-reader.ts';
import { GEYSER_BACKOFF_MAX_MS } from '../../src/chain/geyser/geyser-client.ts';
import { RPC_TIMEOUT_MS } from '../../src/chain/solana/rpc-client.ts';
import { ConfigError } from '../../src/errors.ts';
import { STREAM_START_WAIT_MS } from '../../src/caches/live-caches.ts';
import { PG_CONNECT_TIMEOUT_MS, PG_QUERY_TIMEOUT_MS } from '../../src/postgres/pg-client.ts';
import { FACILITATOR_VERIFY_TIMEOUT_MS } from '../../src/x402/exact-evm/evm-facilitator-settler.ts';

const PAY_TO = 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe';
const EVM = '0x1111111111111111111111111111111111111111';

function problems(env: Record<string, string>, argv: string[]): readonly string[] {
  try {
    loadConfig(env, argv);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('loadConfig', () => {
  it('defaults to the embedded localnet on loopback', () => {
    const c = loadConfig({}, []);
    expect(c.mode).toBe('embedded');
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8402);
    expect(c.svmAsset).toBeNull();
    expect(c.keypairPath.endsWith('/.data/identity.json')).toBe(true);
  });

  it('waits on each upstream as long as its client does by default, and as long as the operator says', () => {
    const c = loadConfig({}, []);
    expect([c.rpcTimeoutMs, c.evmRpcTimeoutMs, c.facilitatorTimeoutMs]).toEqual([RPC_TIMEOUT_MS, EVM_RPC_TIMEOUT_MS, FACILITATOR_VERIFY_TIMEOUT_MS]);
    expect([c.databaseTimeoutMs, c.databaseTimeoutMs]).toEqual([PG_QUERY_TIMEOUT_MS, PG_CONNECT_TIMEOUT_MS]);
    expect([c.geyserBackoffMaxMs, c.geyserStartWaitMs]).toEqual([GEYSER_BACKOFF_MAX_MS, STREAM_START_WAIT_MS]);
    const geyser = loadConfig({ GEYSER_BACKOFF_MAX_MS: '500' }, ['--geyser-start-wait-ms', '0']);
    expect([geyser.geyserBackoffMaxMs, geyser.geyserStartWaitMs]).toEqual([500, 0]);
    const set = loadConfig({ RPC_TIMEOUT_MS: '700' }, ['--evm-rpc-timeout-ms', '800', '--facilitator-timeout-ms=900', '--database-timeout-ms', '600']);
    expect([set.rpcTimeoutMs, set.evmRpcTimeoutMs, set.facilitatorTimeoutMs, set.databaseTimeoutMs]).toEqual([700, 800, 900, 600]);
    expect(problems({}, ['--rpc-timeout-ms', '0'])).toEqual(['--rpc-timeout-ms must be a positive integer, got "0"']);
  });

  it('starts one pool thread with the pool by default, none when told (0), and sizes the pool by the cores unless told', () => {
    const c = loadConfig({}, []);
    expect([c.poolSize, c.poolMinThreads]).toEqual([null, 1]);
    const lazy = loadConfig({ POOL_MIN_THREADS: '0' }, ['--pool-size', '3']);
    expect([lazy.poolSize, lazy.poolMinThreads]).toEqual([3, 0]);
    expect(problems({}, ['--pool-min-threads', '-1'])).toEqual(['--pool-min-threads must be a non-negative integer, got "-1"']);
  });

  it('takes flags over env vars, in both --flag value and --flag=value forms', () => {
    const c = loadConfig({ PORT: '9000', HOST: '0.0.0.0' }, ['--port', '0', '--host=127.0.0.2']);
    expect(c.port).toBe(0);
    expect(c.host).toBe('127.0.0.2');
  });

  it('selects mainnet mode with upstream URLs and requires pay-to addresses there', () => {
    const p = problems({}, ['--rpc-url', 'http://rpc.example']);
    expect(p).toContain('--geyser-url is required when --rpc-url is set');
    expect(p).toContain('--svm-pay-to is required in mainnet mode');
    expect(p).toContain('--evm-pay-to is required in mainnet mode');
    expect(p).toContain('mainnet mode settles Base payments through either --facilitator-url or --evm-rpc-url with --evm-relayer-key (exactly one)');
    const c = loadConfig({ GEYSER_TOKEN: 'secret' }, [
      '--rpc-url',
      'http://rpc.example',
      '--geyser-url',
      'https://g.example',
      '--svm-pay-to',
      PAY_TO,
      '--evm-pay-to',
      EVM,
      '--facilitator-url',
      'https://f.example',
    ]);
    expect(c.mode).toBe('mainnet');
    expect(c.svmAsset).toBe(SOLANA_USDC_MINT);
    expect(c.evmAsset).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    expect(c.facilitatorUrl).toBe('https://f.example');
    const both = problems({}, [
      '--rpc-url',
      'http://r',
      '--geyser-url',
      'http://g',
      '--svm-pay-to',
      PAY_TO,
      '--evm-pay-to',
      EVM,
      '--facilitator-url',
      'https://f',
      '--evm-rpc-url',
      'http://e',
      '--evm-relayer-key',
      'k',
    ]);
    expect(both).toHaveLength(1);
    expect(c.geyserToken).toBe('secret');
  });

  it('lists every problem at once', () => {
    const p = problems({ PORT: '70000' }, ['--svm-pay-to', 'not-base58!', '--evm-pay-to', '0x12', '--bogus', '1', '--rpc-url', 'ftp://x', '--pool-size', '0']);
    expect(p).toEqual(
      expect.arrayContaining([
        expect.stringContaining('PORT must be an integer 0-65535'),
        expect.stringContaining('--svm-pay-to must be a base58 Solana address'),
        expect.stringContaining('--evm-pay-to must be a 0x-prefixed'),
        'unknown option --bogus',
        expect.stringContaining('--rpc-url must be an http:// or https:// URL'),
        expect.stringContaining('--pool-size must be a positive integer'),
      ]),
    );
    expect(p.length).toBeGreaterThanOrEqual(6);
  });

  it('takes a log origin that can be a note key name, and none by default', () => {
    expect(loadConfig({}, []).logOrigin).toBeNull();
    expect(loadConfig({ LOG_ORIGIN: 'intel.example.com/log' }, []).logOrigin).toBe('intel.example.com/log');
    for (const bad of ['intel example', 'a+b', 'tab\there'])
      expect(problems({}, ['--log-origin', bad])).toContain('--log-origin must not contain spaces or + (it is a signed-note key name)');
  });

  it('reports a flag without a value and stray arguments', () => {
    expect(problems({}, ['--port'])).toContain('--port needs a value');
    expect(problems({}, ['serve'])).toContain('unexpected argument "serve"');
  });

  it('documents every option in --help', () => {
    const text = helpText();
    for (const o of OPTIONS) {
      expect(text).toContain(`--${o.flag}`);
      expect(text).toContain(o.env);
    }
  });
});
