/** EVM key files: created 0600, loose permissions refused, the key never in an error message. */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evmAddressOfKey, loadOrCreateEvmKey, readEvmKeyFile } from '../../../src/chain/keys/evm-key-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'evm-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('evm-key-file', () => {
  it('creates a 0600 key once and reads the same key back', () => {
    const path = join(dir, 'sub', 'relayer.key');
    const key = loadOrCreateEvmKey(path);
    expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateEvmKey(path)).toBe(key);
    expect(evmAddressOfKey(key)).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('refuses a group- or world-readable key file without echoing the key', () => {
    const path = join(dir, 'loose.key');
    const key = `0x${'11'.repeat(32)}`;
    writeFileSync(path, key, { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(() => readEvmKeyFile(path)).toThrow(/chmod 600/);
    try {
      readEvmKeyFile(path);
    } catch (err) {
      expect(String(err)).not.toContain(key.slice(2));
    }
  });

  it('refuses a file that does not hold a key', () => {
    const path = join(dir, 'bad.key');
    writeFileSync(path, 'not a key\n', { mode: 0o600 });
    expect(() => readEvmKeyFile(path)).toThrow(/does not hold/);
  });
});
