/**
 * The storefront's script: reads the catalog the server embedded in the page and draws the
 * console, the live ledger, the receipt check and the health panel into their sections. The
 * catalog section itself is server-rendered and works without this script.
 */
import type { ConsoleEndpoint } from '../src/catalog/console-endpoint.ts';
import { mountConsole } from './console.ts';
import { byId } from './dom.ts';
import { mountHealthPanel } from './health-panel.ts';
import { mountLedgerPanel } from './ledger-panel.ts';
import { mountReceiptPanel } from './receipt-panel.ts';

function start(): void {
  document.documentElement.classList.add('js');
  const catalog = JSON.parse(byId('catalog-data').textContent ?? '[]') as ConsoleEndpoint[];
  const select = mountConsole(byId('console-root'), catalog);
  // "Try it" links of the catalog pick their endpoint in the console.
  document.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a[data-endpoint]');
    if (!(link instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    select(link.dataset.endpoint ?? '');
    byId('console').scrollIntoView({ block: 'start' });
    byId('endpoint-select').focus({ preventScroll: true });
  });
  mountLedgerPanel(byId('ledger-root'));
  mountReceiptPanel(byId('receipt-root'));
  mountHealthPanel(byId('health-root'));
}

// A module script runs after the document is parsed.
start();
