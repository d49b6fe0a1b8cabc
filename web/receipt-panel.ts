/**
 * The receipt panel: a pasted receipt (the `X-Service-Receipt` header value, or its JSON) is
 * verified here, in the browser, by the same checks the CLI runs (src/client/receipt-check.ts):
 * signature, signer, signed checkpoint, ledger entry and Merkle path, recomputed from public
 * trust data. The service is only asked for that data, never for a verdict. A ledger entry can
 * be checked by index the same way.
 */
import { type CheckReport, parseReceipt, type TrustFetch, verifyProofAt, verifyReceipt } from '../src/client/receipt-check.ts';
import { h, replace } from './dom.ts';

const trustFetch: TrustFetch = async (path) => {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // A body that is not JSON fails the check that reads it.
  }
  return { status: res.status, body };
};

function reportView(report: CheckReport, what: string): HTMLElement {
  const passed = report.lines.filter((l) => l.ok).length;
  return h(
    'div',
    { class: `report ${report.ok ? 'report-ok' : 'report-fail'}` },
    h('h3', { class: 'verdict' }, report.ok ? `${what}: VERIFIED` : `${what}: NOT VERIFIED`),
    h('p', {}, `${passed} of ${report.lines.length} checks passed.`),
    h(
      'ul',
      { class: 'checks' },
      ...report.lines.map((l) =>
        h(
          'li',
          { class: l.ok ? 'pass' : 'fail' },
          h('span', { class: 'badge' }, l.ok ? 'PASS' : 'FAIL'),
          ' ',
          h('strong', {}, l.name),
          l.detail ? `: ${l.detail}` : '',
        ),
      ),
    ),
  );
}

const failed = (what: string, reason: string) =>
  h('div', { class: 'report report-fail' }, h('h3', { class: 'verdict' }, `${what}: NOT VERIFIED`), h('p', {}, reason));

/** Draws the panel into `root`. */
export function mountReceiptPanel(root: HTMLElement): void {
  const receipt = h('textarea', { id: 'receipt-input', rows: 5, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'receipt-input-hint' });
  const bodyFile = h('input', { id: 'receipt-body', type: 'file', 'aria-describedby': 'receipt-body-hint' });
  const verify = h('button', { type: 'submit' }, 'Verify in this browser');
  const form = h(
    'form',
    { id: 'receipt-form', 'aria-label': 'Verify a receipt' },
    h('div', { class: 'field' }, h('label', { for: 'receipt-input' }, 'Receipt'), receipt),
    h('p', { id: 'receipt-input-hint', class: 'hint' }, 'The X-Service-Receipt header value (base64) or the receipt JSON.'),
    h('div', { class: 'field' }, h('label', { for: 'receipt-body' }, 'Saved answer body (optional)'), bodyFile),
    h('p', { id: 'receipt-body-hint', class: 'hint' }, 'The exact bytes of the paid answer; its SHA-256 is then checked against the receipt too.'),
    h('div', { class: 'actions' }, verify),
  );
  const indexInput = h('input', { id: 'proof-index', type: 'number', min: 0, step: 1, required: true, inputmode: 'numeric' });
  const indexButton = h('button', { type: 'submit', class: 'secondary' }, 'Check inclusion');
  const indexForm = h(
    'form',
    { id: 'proof-form', class: 'inline-form', 'aria-label': 'Check a ledger entry' },
    h('div', { class: 'field' }, h('label', { for: 'proof-index' }, 'Or check ledger entry #'), indexInput),
    h('div', { class: 'actions' }, indexButton),
  );
  const result = h('div', { id: 'receipt-result', class: 'result', 'aria-live': 'polite' });
  replace(root, form, indexForm, result);

  const run = async (button: HTMLButtonElement, work: () => Promise<HTMLElement>) => {
    button.disabled = true;
    result.setAttribute('aria-busy', 'true');
    try {
      replace(result, await work());
    } catch (err) {
      replace(result, failed('Check', `the service could not be reached (${err instanceof Error ? err.message : String(err)})`));
    } finally {
      button.disabled = false;
      result.removeAttribute('aria-busy');
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(verify, async () => {
      const parsed = parseReceipt(receipt.value);
      if (!parsed.ok) return failed('Receipt', parsed.reason);
      const file = bodyFile.files?.[0];
      const options = file ? { body: new Uint8Array(await file.arrayBuffer()) } : {};
      return reportView(await verifyReceipt(parsed.receipt, trustFetch, options), 'Receipt');
    });
  });
  indexForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!indexInput.reportValidity()) return;
    void run(indexButton, async () => reportView(await verifyProofAt(Number(indexInput.value), trustFetch), `Ledger entry #${indexInput.value}`));
  });
}
