/**
 * The live ledger panel: the newest entries (payments and operator events) appearing as they are
 * appended, the current checkpoint, and the state of the connection.
 */
import { formatUsd } from '../src/catalog/format-usd.ts';
import { chainName } from './challenge.ts';
import { h, replace } from './dom.ts';
import { clockTime, shortHash } from './format.ts';
import { connectLedgerFeed, type FeedCheckpoint, type FeedEntry, type FeedState } from './ledger-feed-client.ts';

/** Entries the panel keeps on screen. */
const SHOWN_ENTRIES = 20;

const hash = (label: string, hex: string | undefined) => (hex ? h('span', { class: 'hash' }, `${label} `, h('code', { title: hex }, shortHash(hex))) : '');

function entryItem(e: FeedEntry): HTMLLIElement {
  const payment = e.kind === 'payment';
  const what = payment ? h('code', {}, e.endpoint ?? '') : h('span', {}, e.event ?? 'audit', e.reason ? `: ${e.reason}` : '');
  return h(
    'li',
    { class: `entry entry-${payment ? 'payment' : 'audit'} entry-new`, 'data-index': e.index },
    h('span', { class: 'entry-index' }, `#${e.index}`),
    h('span', { class: 'entry-kind' }, e.kind),
    what,
    payment ? h('span', { class: 'entry-price' }, formatUsd(e.priceUsdcUnits ?? 0)) : '',
    payment && e.network ? h('span', { class: 'entry-network', title: e.network }, chainName(e.network)) : '',
    h('time', { datetime: e.time }, clockTime(e.time)),
    hash('entry', e.entrySha256),
    payment ? hash('receipt', e.receiptSha256) : '',
  );
}

function stateText(s: FeedState): string {
  if (s.mode === 'live') return 'Live: new entries appear as they are appended.';
  if (s.mode !== 'retrying') return 'Connecting to the live feed…';
  const seconds = Math.round(s.inMs / 1000);
  return s.polling
    ? `Live feed unavailable; reading /ledger every few seconds (next socket attempt in ${seconds} s).`
    : `Connection lost; reconnecting in ${seconds} s.`;
}

/** Adds entries to `list` newest first, once each, keeping the newest SHOWN_ENTRIES. */
function entryList(list: HTMLElement, empty: HTMLElement): (e: FeedEntry) => void {
  const seen = new Set<number>();
  return (e) => {
    if (seen.has(e.index)) return;
    seen.add(e.index);
    empty.hidden = true;
    const after = [...list.children].find((li) => Number((li as HTMLElement).dataset.index) < e.index) ?? null;
    list.insertBefore(entryItem(e), after);
    while (list.children.length > SHOWN_ENTRIES) {
      const last = list.lastElementChild as HTMLElement;
      seen.delete(Number(last.dataset.index));
      last.remove();
    }
  };
}

/** Draws the panel into `root` and starts its connection. */
export function mountLedgerPanel(root: HTMLElement): void {
  const status = h('p', { class: 'feed-state', role: 'status' }, 'Connecting…');
  const checkpoint = h('dl', { class: 'facts checkpoint' });
  const list = h('ul', { class: 'entries' });
  const log = h('div', { role: 'log', 'aria-label': 'Newest ledger entries, newest first', 'aria-relevant': 'additions' }, list);
  const empty = h('p', { class: 'hint' }, 'No entries yet: a paid call adds one.');
  replace(root, status, checkpoint, h('h3', { class: 'visually-hidden' }, 'Newest entries'), empty, log);

  const addEntry = entryList(list, empty);
  const setCheckpoint = (c: FeedCheckpoint) => {
    replace(
      checkpoint,
      h('dt', {}, 'Tree size'),
      h('dd', { class: 'tree-size' }, String(c.treeSize)),
      h('dt', {}, 'Merkle root'),
      h('dd', {}, h('code', { title: c.rootSha256, class: 'root' }, shortHash(c.rootSha256, 12, 6))),
      h('dt', {}, 'Chain head'),
      h('dd', {}, h('code', { title: c.chainHead }, shortHash(c.chainHead, 12, 6))),
    );
  };
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  connectLedgerFeed(
    {
      socketUrl: `${scheme}//${location.host}/ledger/live`,
      pollUrl: '/ledger?limit=20',
      openSocket: typeof WebSocket === 'function' ? (url) => new WebSocket(url) as never : null,
      fetchJson: async (url) => (await fetch(url, { headers: { accept: 'application/json' } })).json(),
      setTimer: (fn, ms) => window.setTimeout(fn, ms),
      clearTimer: (t) => window.clearTimeout(t as number),
    },
    { entry: addEntry, checkpoint: setCheckpoint, state: (s) => replace(status, stateText(s)) },
  );
}
