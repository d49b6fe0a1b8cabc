import { describe, expect, it } from 'vitest';
import { CATALOG_BY_PATH } from '../../../src/catalog/endpoints.ts';
import { validateQuery } from '../../../src/catalog/validate-query.ts';
import { addresses, PARAM_RULES } from '../../fixtures/param-rules.ts';

const entry = (path: string) => CATALOG_BY_PATH.get(path)!;
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

describe('validateQuery rules', () => {
  it.each(PARAM_RULES.map((r) => [`${r.path}: ${r.why}`, r] as const))('%s', (_, rule) => {
    const result = validateQuery(entry(rule.path), rule.query);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.error).toBe(rule.error);
      expect(result.error.param).toBe(rule.param);
      expect(result.error.message).toContain(rule.param);
      if (rule.says) expect(result.error.message).toContain(rule.says);
    }
  });
});

describe('validateQuery conversions', () => {
  it('applies defaults and converts types', () => {
    const r = validateQuery(entry('/v1/slippage-map'), `inputMint=${BONK}&outputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&amount=1000`);
    expect(r).toEqual({
      ok: true,
      value: { inputMint: BONK, outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: '1000', slippageBps: 50, mults: [0.1, 1, 10, 100] },
    });
    expect(validateQuery(entry('/v1/sgp-checkpoint'), '')).toEqual({ ok: true, value: { n: 20 } });
    expect(validateQuery(entry('/v1/tipfloor'), 'fresh=true')).toEqual({ ok: true, value: { fresh: true } });
  });

  it('reads an unescaped + in a base64 transaction as +, not as the space form decoding makes of it', () => {
    const b64 = Buffer.from(Uint8Array.from({ length: 120 }, (_, i) => (i * 37 + 251) % 256)).toString('base64');
    expect(b64).toContain('+');
    expect(validateQuery(entry('/v1/simulate'), `tx=${b64}`)).toEqual({ ok: true, value: { tx: b64 } });
    expect(validateQuery(entry('/v1/simulate'), `tx=${encodeURIComponent(b64)}`)).toEqual({ ok: true, value: { tx: b64 } });
  });

  it('keeps the mints as sent, duplicates and invalid ones included (the handler dedups and reports both counts)', () => {
    const r = validateQuery(entry('/v1/batch/token-risk'), `mints=${BONK},${BONK},nope`);
    expect(r).toEqual({ ok: true, value: { mints: [BONK, BONK, 'nope'] } });
  });

  it('counts the distinct mints against the limit of 10', () => {
    const eleven = [...Array.from({ length: 10 }, () => BONK), BONK].join(',');
    expect(validateQuery(entry('/v1/batch/token-risk'), `mints=${eleven}`).ok).toBe(true);
  });

  it('accepts 128 distinct accounts', () => {
    const r = validateQuery(entry('/v1/priority-fee'), `accounts=${addresses(128).join(',')}`);
    expect(r.ok && (r.value.accounts as string[]).length).toBe(128);
  });

  it('accepts decision firewall parameters', () => {
    const r = validateQuery(entry('/v1/decision'), `mint=${BONK}&amountUsd=.5&minSmri=70&denyMintAuthority=true&policy=degen`);
    expect(r).toEqual({ ok: true, value: { mint: BONK, action: 'assess', amountUsd: '.5', minSmri: 70, denyMintAuthority: true, policy: 'degen' } });
  });

  it('refuses a parameter the endpoint does not define, so a misspelt rule is never dropped in silence', () => {
    // minSmr (a typo of minSmri) would otherwise leave the firewall without its floor.
    const r = validateQuery(entry('/v1/decision'), `mint=${BONK}&minSmr=70`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ error: 'unknown_parameter', param: 'minSmr' });
    expect(r.error.message).toContain('minSmri');
    const epoch = validateQuery(entry('/v1/epoch'), 'rate=both&utm=x');
    expect(epoch.ok ? null : epoch.error.param).toBe('utm');
  });
});
