/**
 * The receipt panel: a pasted receipt (the `X-Service-Receipt` header value, or its JSON) is
 * verified here, in the browser, by the same checks the CLI runs (src/receipt-checks/receipt-check.ts):
 * signature, signer, signed checkpoint, ledger entry and Merkle path, recomputed from public
 * trust data. The service is only asked for that data, never for a verdict. A ledger entry can
 * be checked by index the same way.
 */
import { type CheckReport, parseReceipt, type TrustFetch, verifyProofAt, verifyReceipt } from '../src/receipt-checks/receipt-check.ts';
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

/** The two forms of the panel: a receipt (and optional body), or a ledger index. */
function receiptForms() {
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
  const index = h('input', { id: 'proof-index', type: 'number', min: 0, step: 1, required: true, inputmode: 'numeric' });
  const indexButton = h('button', { type: 'submit', class: 'secondary' }, 'Check inclusion');
  const indexForm = h(
    'form',
    { id: 'proof-form', class: 'inline-form', 'aria-label': 'Check a ledger entry' },
    h('div', { class: 'field' }, h('label', { for: 'proof-index' }, 'Or check ledger entry #'), index),
    h('div', { class: 'actions' }, indexButton),
  );
  return { receipt, bodyFile, verify, form, index, indexButton, indexForm };
}

/** Runs one check: disables its button meanwhile and writes the report it returns. */
async function runCheck(result: HTMLElement, button: HTMLButtonElement, work: () => Promise<HTMLElement>): Promise<void> {
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
}

/** Draws the panel into `root`. */
export function mountReceiptPanel(root: HTMLElement): void {
  const ui = receiptForms();
  const result = h('div', { id: 'receipt-result', class: 'result', 'aria-live': 'polite' });
  replace(root, ui.form, ui.indexForm, result);
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void runCheck(result, ui.verify, async () => {
      const parsed = parseReceipt(ui.receipt.value);
      if (!parsed.ok) return failed('Receipt', parsed.reason);
      const file = ui.bodyFile.files?.[0];
      const options = file ? { body: new Uint8Array(await file.arrayBuffer()) } : {};
      return reportView(await verifyReceipt(parsed.receipt, trustFetch, options), 'Receipt');
    });
  });
  ui.indexForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!ui.index.reportValidity()) return;
    const index = Number(ui.index.value);
    void runCheck(result, ui.indexButton, async () => reportView(await verifyProofAt(index, trustFetch), `Ledger entry #${index}`));
  });
}
