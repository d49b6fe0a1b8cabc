/**
 * The two checks of the option parser that read text only: an option's value against its kind, and
 * argv split into flag values. config.ts applies them to every option and builds the Config.
 */
import { isBase58OfLength } from './chain/solana/base58.ts';
import { OPTIONS, type Kind } from './config-options.ts';
import { parseProxyEntry } from './http/admission/client-address.ts';
import { decodeCosignerKey } from './tlog/cosignature.ts';

const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** The problem with one option's value, in words naming where it came from; null when it is valid. */
export function checkValue(kind: Kind, name: string, value: string): string | null {
  switch (kind) {
    case 'port': {
      const n = Number(value);
      return /^\d+$/.test(value) && n <= 65535 ? null : `${name} must be an integer 0-65535, got "${value}"`;
    }
    case 'int':
      return /^[1-9]\d{0,8}$/.test(value) ? null : `${name} must be a positive integer, got "${value}"`;
    case 'url':
      return /^(https?):\/\/[^\s]+$/.test(value) && URL.canParse(value) ? null : `${name} must be an http:// or https:// URL, got "${value}"`;
    case 'svm-address':
      return isBase58OfLength(value, 32) ? null : `${name} must be a base58 Solana address (32 bytes), got "${value}"`;
    case 'evm-address':
      return EVM_ADDRESS_RE.test(value) ? null : `${name} must be a 0x-prefixed 20-byte hex address, got "${value}"`;
    case 'bool':
      return value === 'true' || value === 'false' ? null : `${name} must be true or false, got "${value}"`;
    case 'commitment':
      return value === 'confirmed' || value === 'finalized' ? null : `${name} must be confirmed or finalized, got "${value}"`;
    case 'count':
      return /^(?:0|[1-9]\d{0,8})$/.test(value) ? null : `${name} must be a non-negative integer, got "${value}"`;
    case 'ip-list': {
      const bad = value.split(',').find((entry) => parseProxyEntry(entry) === null);
      return bad === undefined ? null : `${name} must list IP addresses or CIDR ranges (10.0.0.0/8) separated by commas, got "${bad}"`;
    }
    case 'witness-list': {
      const bad = value.split(/\s+/).findIndex((entry) => parseWitnessEntry(entry) === null);
      // Never echoed: a witness URL may carry credentials.
      return bad < 0 ? null : `${name} entry ${bad + 1} must be URL=VKEY (an http(s) URL, then the witness's cosigner vkey; value not shown)`;
    }
    case 'string':
      return value.length > 0 ? null : `${name} must not be empty`;
    case 'database-url':
      // Never echoed: it carries the database password.
      return /^postgres(?:ql)?:\/\/[^\s]+$/.test(value) && URL.canParse(value) ? null : `${name} must be a postgres:// or postgresql:// URL (value not shown)`;
  }
}

/** One `--witness` value: the URL, then `=` and the witness's cosigner vkey (the URL may itself hold `=`). */
export function parseWitnessEntry(entry: string): { readonly url: string; readonly vkey: string } | null {
  for (let at = entry.indexOf('='); at > 0; at = entry.indexOf('=', at + 1)) {
    const url = entry.slice(0, at);
    const vkey = entry.slice(at + 1);
    if (/^https?:\/\/\S+$/.test(url) && URL.canParse(url) && decodeCosignerKey(vkey) !== null) return { url, vkey };
  }
  return null;
}

/** Splits argv into flag values; unknown flags and missing values are problems. A true/false option alone means true. */
export function parseArgv(argv: readonly string[], problems: string[]): Map<string, string> {
  const known = new Set(OPTIONS.map((o) => o.flag));
  const switches = new Set(OPTIONS.filter((o) => o.kind === 'bool').map((o) => o.flag));
  const repeatable = new Set(OPTIONS.filter((o) => o.repeatable).map((o) => o.flag));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const flag = m[1]!;
    if (!known.has(flag)) {
      problems.push(`unknown option --${flag}`);
      if (m[2] === undefined && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) i++;
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      } else if (switches.has(flag)) {
        value = 'true';
      } else {
        problems.push(`--${flag} needs a value`);
        continue;
      }
    }
    const before = out.get(flag);
    out.set(flag, before !== undefined && repeatable.has(flag) ? `${before} ${value}` : value);
  }
  return out;
}
