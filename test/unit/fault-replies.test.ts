/**
 * A fault's own text never reaches its reply: the codes whose cause lies outside the request answer
 * their fixed sentence (details kept), the text goes to the log on one line with its causes, and
 * a thrown non-ServiceError answers `internal_error`. Our own sentences (a parameter error) stay.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAULT_MESSAGE, logText, replyForError, ServiceError } from '../../src/errors.ts';

const SECRET_TEXT = 'HTTP request failed.\n\nURL: https://rpc.example/v2/KEY123\nRequest body: {}';
const bodyOf = (reply: { body: string | Buffer }) => JSON.parse(String(reply.body));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fault replies', () => {
  it.each(Object.keys(FAULT_MESSAGE) as (keyof typeof FAULT_MESSAGE)[])('%s answers its fixed sentence and logs the text', (code) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reply = replyForError(new ServiceError(code, SECRET_TEXT, { upstream: 'solana-rpc' }));
    expect(bodyOf(reply)).toEqual({ upstream: 'solana-rpc', error: code, message: FAULT_MESSAGE[code] });
    expect(logged).toHaveBeenCalledWith(`fault ${code}: HTTP request failed. URL: https://rpc.example/v2/KEY123 Request body: {}`);
  });

  it('anything else thrown answers internal_error, its text (and its cause) logged', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const err = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:443') });
    expect(bodyOf(replyForError(err))).toEqual({ error: 'internal_error', message: FAULT_MESSAGE.internal_error });
    expect(logged).toHaveBeenCalledWith('fault internal_error: fetch failed: connect ECONNREFUSED 10.0.0.1:443');
  });

  it('our own sentence of a request error stays, and is not logged', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reply = replyForError(new ServiceError('invalid_parameter', 'mint must be a base58 address', { param: 'mint' }));
    expect(bodyOf(reply)).toEqual({ param: 'mint', error: 'invalid_parameter', message: 'mint must be a base58 address' });
    expect(logged).not.toHaveBeenCalled();
  });

  it('logText is one line', () => {
    expect(logText(new Error('a\n  b\n\nc'))).toBe('a b c');
  });
});
