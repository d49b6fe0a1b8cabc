/**
 * The members of a payment's JSON found without parsing them. The official client copies the 402's
 * `resource` and `extensions` into every payment it sends; a paid call reads none of that but the
 * `payment-identifier` id, so only the members a call uses are parsed, and the scan that finds them
 * checks the structure of the rest (strings closed, brackets paired) without building any of it.
 */

/** Where a member's JSON value lies in the text: [start, end). */
export type Span = readonly [number, number];

/** Deepest nesting the scan follows: far beyond any payment, and a bound on a hostile one's cost. */
const MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The index after the string that opens at `i`, or -1 when it is not closed. */
function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return -1;
    let escapes = 0;
    for (let k = q - 1; s.charCodeAt(k) === BACKSLASH; k--) escapes++;
    if (escapes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the object or array that opens at `i`, or -1 when its brackets do not pair. */
function skipComposite(s: string, i: number): number {
  const closers: number[] = [];
  for (let j = i; j < s.length; ) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) {
      j = skipString(s, j);
      if (j < 0) return -1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (closers.length >= MAX_DEPTH) return -1;
      closers.push(c + 2); // `{` + 2 is `}`, `[` + 2 is `]`
    } else if (c === 0x7d || c === 0x5d) {
      if (closers.pop() !== c) return -1;
      if (closers.length === 0) return j + 1;
    }
    j++;
  }
  return -1;
}

/** The index after the JSON value that starts at `i` (a scalar ends at the next delimiter), or -1. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === 0x7b || c === 0x5b) return skipComposite(s, i);
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

/** The key that opens at `i` (a quoted string) and the index after it, or null. */
function readKey(s: string, i: number): { key: string; end: number } | null {
  if (s.charCodeAt(i) !== QUOTE) return null;
  const end = skipString(s, i);
  if (end < 0) return null;
  const raw = s.slice(i + 1, end - 1);
  if (!raw.includes('\\')) return { key: raw, end };
  try {
    return { key: JSON.parse(s.slice(i, end)) as string, end };
  } catch {
    return null;
  }
}

/**
 * Where a member's value ends when it is known text (its end index), or -1 to scan it: a value
 * that starts with a whole JSON object, compared character for character, is that object.
 */
export type KnownValueEnd = (key: string, s: string, from: number) => number;

/**
 * The members of the object whose `{` is at `start`, each key with the span of its value (a key
 * given twice: the last, as JSON.parse takes it), and the index after the object; null when the
 * object is not well formed at this level. `known` may end a member's value without scanning it.
 */
export function scanMembers(s: string, start: number, known?: KnownValueEnd): { members: Map<string, Span>; end: number } | null {
  if (s.charCodeAt(start) !== 0x7b) return null;
  const members = new Map<string, Span>();
  let i = skipSpace(s, start + 1);
  if (s.charCodeAt(i) === 0x7d) return { members, end: i + 1 };
  for (;;) {
    const key = readKey(s, i);
    if (!key) return null;
    i = skipSpace(s, key.end);
    if (s.charCodeAt(i) !== 0x3a) return null;
    const from = skipSpace(s, i + 1);
    const end = known ? known(key.key, s, from) : -1;
    const to = end >= 0 ? end : skipValue(s, from);
    if (to < 0) return null;
    members.set(key.key, [from, to]);
    i = skipSpace(s, to);
    const c = s.charCodeAt(i);
    if (c === 0x7d) return { members, end: i + 1 };
    if (c !== 0x2c) return null;
    i = skipSpace(s, i + 1);
  }
}

/** The members of a JSON text that is one object and nothing else (whitespace around it aside), or null. */
export function scanObject(s: string, known?: KnownValueEnd): Map<string, Span> | null {
  const scanned = scanMembers(s, skipSpace(s, 0), known);
  if (!scanned || skipSpace(s, scanned.end) !== s.length) return null;
  return scanned.members;
}

/**
 * Defines `key` on `target` as the value of a JSON text parsed when first read (undefined when the
 * text does not parse): what a call never reads is never parsed, and whatever reads it (a remote
 * facilitator's request, serialized whole) still gets it.
 */
export function defineLazyJson(target: Record<string, unknown>, key: string, text: string): void {
  let parsed = false;
  let value: unknown;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: false,
    get() {
      if (!parsed) {
        parsed = true;
        try {
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
      }
      return value;
    },
  });
}
