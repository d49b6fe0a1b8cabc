/** Small text formats of the page. */

/** `abcd1234…ef56` of a long hash; the full value goes in a title. */
export function shortHash(hex: string, head = 8, tail = 4): string {
  return hex.length <= head + tail + 1 ? hex : `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}

/** `3 h 12 min`, `4 min 5 s`, `12 s` from seconds. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const min = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d} d ${hours} h`;
  if (hours > 0) return `${hours} h ${min} min`;
  if (min > 0) return `${min} min ${sec} s`;
  return `${sec} s`;
}

/** `12:03:04` (UTC) from an ISO time, for the ledger's rows. */
export function clockTime(iso: string): string {
  const m = /T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} UTC` : iso;
}
