/**
 * The health panel: `/health` read every few seconds (paused while the tab is hidden): mode, the
 * Geyser stream and its slot, the ledger's size and head, the kill switch, requests served.
 */
import { h, replace } from './dom.ts';
import { duration, shortHash } from './format.ts';

/** How often the panel reads /health. */
export const HEALTH_POLL_MS = 5000;

// The fields of /health the panel reads; anything may be absent (mainnet vs embedded, older versions).
interface Health {
  status?: string;
  version?: string;
  mode?: string;
  uptimeSeconds?: number;
  requests?: { total?: number };
  timing?: { geyser?: { state?: string; live?: boolean; lastSlot?: number | null; lastSlotAgeMs?: number | null; lastError?: string | null } };
  ledger?: { entries?: number; chainHeadSha256?: string; merkleRootSha256?: string; writable?: boolean; lastEntryAt?: string | null };
  killSwitch?: { active?: boolean; since?: string | null };
}

const fact = (term: string, value: Node | string, good?: boolean) => [
  h('dt', {}, term),
  h('dd', { class: good === undefined ? '' : good ? 'good' : 'bad' }, good === undefined ? '' : h('span', { class: 'dot', 'aria-hidden': 'true' }), value),
];

function geyserText(g: NonNullable<NonNullable<Health['timing']>['geyser']>): string {
  const slot = g.lastSlot === null || g.lastSlot === undefined ? 'no slot yet' : `slot ${g.lastSlot}`;
  const age = typeof g.lastSlotAgeMs === 'number' ? `, ${(g.lastSlotAgeMs / 1000).toFixed(1)} s ago` : '';
  return `${g.state ?? 'unknown'}${g.live === undefined ? '' : g.live ? ' (live)' : ' (not live)'}, ${slot}${age}${g.lastError ? `; last error: ${g.lastError}` : ''}`;
}

/** The facts of one /health answer. */
function healthFacts(x: Health): HTMLElement {
  const g = x.timing?.geyser;
  const l = x.ledger;
  const k = x.killSwitch;
  return h(
    'dl',
    { class: 'facts health' },
    ...fact('Status', `${x.status ?? 'unknown'}${x.version ? `, version ${x.version}` : ''}`, x.status === 'ok'),
    ...fact('Mode', x.mode === 'embedded' ? 'embedded (local Solana and Base)' : (x.mode ?? 'unknown')),
    ...fact('Uptime', typeof x.uptimeSeconds === 'number' ? duration(x.uptimeSeconds) : 'unknown'),
    ...(g ? fact('Geyser stream', geyserText(g), g.live === true) : []),
    ...(l
      ? fact(
          'Ledger',
          h(
            'span',
            {},
            `${l.entries ?? 0} entries, head `,
            h('code', { title: l.chainHeadSha256 ?? '' }, shortHash(l.chainHeadSha256 ?? '')),
            l.writable === false ? ', NOT writable' : '',
          ),
          l.writable !== false,
        )
      : []),
    ...(k ? fact('Kill switch', k.active ? `active since ${k.since ?? 'unknown'}: paid calls are stopped` : 'off: paid calls are served', !k.active) : []),
    ...fact('Requests served', String(x.requests?.total ?? 'unknown')),
  );
}

/** Draws the panel into `root` and starts polling. */
export function mountHealthPanel(root: HTMLElement): void {
  const body = h('div', {}, h('p', { class: 'hint' }, 'Reading /health…'));
  const updated = h('p', { class: 'hint' });
  replace(root, body, updated);
  const read = async () => {
    if (document.hidden) return;
    try {
      const res = await fetch('/health', { headers: { accept: 'application/json' } });
      replace(body, healthFacts((await res.json()) as Health));
      replace(updated, `Updated ${new Date().toLocaleTimeString()}.`);
    } catch {
      replace(body, h('p', { class: 'bad' }, 'The service did not answer /health.'));
    }
  };
  void read();
  window.setInterval(() => void read(), HEALTH_POLL_MS);
  document.addEventListener('visibilitychange', () => void read());
}
