/**
 * The log redactor: configured upstream URLs become scheme and host wherever a library wrote them
 * (whole, with a path appended, percent-encoded parts alone), tokens and keys become `***`, and a
 * URL nobody configured keeps only its scheme and host; lines without secrets pass unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createLogRedactor } from '../../src/log-redactor.ts';

const redact = createLogRedactor({
  rpcUrl: 'https://rpc.example/v2/KEY123456?api-key=QUERYKEY1',
  evmRpcUrl: 'https://base.example/v2/EVMKEY987',
  geyserToken: 'GEYSERTOKEN1',
  jupiterApiKey: 'JUPKEY12345',
  databaseUrl: 'postgres://user:DBPASSWORD9@db.example:5432/payments',
  facilitatorUrl: 'https://facilitator.example/base/FACKEY555',
});

describe('the log redactor', () => {
  it('cuts a configured URL a library wrote into its error to scheme and host', () => {
    const viem = 'HTTP request failed.\n\nStatus: 500\nURL: https://base.example/v2/EVMKEY987\nRequest body: {"method":"eth_call"}';
    expect(redact(viem)).toBe('HTTP request failed.\n\nStatus: 500\nURL: https://base.example\nRequest body: {"method":"eth_call"}');
    expect(redact('GET https://facilitator.example/base/FACKEY555/supported failed')).toBe('GET https://facilitator.example failed');
  });

  it('hides the secret parts wherever they stand alone: path, query value, password, tokens and keys', () => {
    const text = 'key KEY123456, query QUERYKEY1, password DBPASSWORD9, token GEYSERTOKEN1, jupiter JUPKEY12345';
    expect(redact(text)).toBe('key ***, query ***, password ***, token ***, jupiter ***');
  });

  it('cuts any URL with userinfo, a path or a query, configured or not', () => {
    expect(redact('connect postgres://user:DBPASSWORD9@db.example:5432/payments refused')).toBe('connect postgres://db.example:5432 refused');
    expect(redact('see https://other.example/a/b?token=zzz')).toBe('see https://other.example');
  });

  it('leaves lines without secrets as they are', () => {
    const line = 'listening http://127.0.0.1:8402 (port 8402, mainnet mode)';
    expect(redact(line)).toBe(line);
    expect(createLogRedactor({})('fatal: ENOENT no such file')).toBe('fatal: ENOENT no such file');
  });
});
