/**
 * The console: pick an endpoint, fill in its form, see the request and its commands, ask the
 * service for the 402 terms (the paid path without payment) or run the free preview
 * (`GET /preview/<paid path>`). Results go to a polite live region, so a screen reader hears them.
 */
import type { ConsoleEndpoint } from '../src/catalog/console-endpoint.ts';
import { decodeChallenge } from './challenge.ts';
import { commandsView, failureView, messageView, previewView, termsView } from './console-output.ts';
import { h, replace } from './dom.ts';
import { buildParamForm, type ParamForm } from './param-form.ts';
import { describePreviewFailure } from './preview-result.ts';
import { type BuiltRequest, requestUrl } from './shell.ts';

const CATEGORY_ORDER = ['intelligence', 'execution', 'timing', 'forensics', 'market', 'defi'];

function endpointSelect(catalog: readonly ConsoleEndpoint[]): HTMLSelectElement {
  const select = h('select', { id: 'endpoint-select', name: 'endpoint' });
  const categories = [...new Set(catalog.map((e) => e.category))].sort((a, b) => CATEGORY_ORDER.indexOf(a) - CATEGORY_ORDER.indexOf(b));
  for (const category of categories) {
    const group = h('optgroup', { label: category });
    for (const e of catalog.filter((x) => x.category === category)) group.append(h('option', { value: e.path }, `${e.path} (${e.price})`));
    select.append(group);
  }
  return select;
}

/** The console's elements, in page order. */
function consoleLayout(root: HTMLElement, catalog: readonly ConsoleEndpoint[]) {
  const parts = {
    select: endpointSelect(catalog),
    meta: h('p', { class: 'endpoint-meta' }),
    fields: h('div', {}),
    termsButton: h('button', { type: 'button', class: 'secondary' }, 'Show 402 terms'),
    previewButton: h('button', { type: 'submit' }, 'Run free preview'),
    requestLine: h('code', { class: 'request-line wrap-anywhere' }),
    commands: h('div', {}),
    result: h('div', { id: 'console-result', class: 'result', 'aria-live': 'polite' }),
  };
  const form = h(
    'form',
    { id: 'console-form', novalidate: true, 'aria-label': 'Request parameters' },
    parts.fields,
    h('div', { class: 'actions' }, parts.previewButton, parts.termsButton),
    h(
      'p',
      { class: 'note' },
      'One free preview a day per client (UTC), shared with ',
      h('code', {}, 'x402-intel preview'),
      " from the same address: a preview run here uses the CLI's too.",
    ),
  );
  replace(
    root,
    h('div', { class: 'field' }, h('label', { for: 'endpoint-select' }, 'Endpoint'), parts.select),
    parts.meta,
    form,
    h('h3', { class: 'visually-hidden' }, 'Result'),
    parts.result,
    h('h3', {}, 'Request'),
    h('p', {}, 'GET ', parts.requestLine),
    parts.commands,
  );
  return { ...parts, form };
}

async function readJson(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

const timeFormat = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

/** What a refused request shows; a 400 also marks its field. */
function refused(res: Response, body: unknown, form: ParamForm, request: BuiltRequest): HTMLElement {
  const failure = describePreviewFailure(res.status, body, res.headers.get('retry-after'), timeFormat);
  if (failure.param) form.markInvalid(failure.param, failure.lines[0] ?? '');
  return failureView(failure, request);
}

/** The paid URL without payment: the decoded 402. */
async function showTerms(request: BuiltRequest, form: ParamForm): Promise<HTMLElement> {
  const res = await fetch(requestUrl(request), JSON_ACCEPT);
  if (res.status !== 402) return refused(res, await readJson(res), form, request);
  const decoded = decodeChallenge(res.headers.get('payment-required'));
  return decoded.ok ? termsView(decoded.challenge) : messageView('The 402 answer could not be read', decoded.reason);
}

/** The free preview of the request. */
async function runPreview(request: BuiltRequest, form: ParamForm): Promise<HTMLElement> {
  const q = request.query.toString();
  const res = await fetch(`/preview${request.path}${q ? `?${q}` : ''}`, JSON_ACCEPT);
  const body = await readJson(res);
  return res.status === 200 ? previewView(body) : refused(res, body, form, request);
}

/** Runs one action: checks the form, disables its button meanwhile, writes what it returns. */
async function runAction(result: HTMLElement, button: HTMLButtonElement, form: ParamForm, action: () => Promise<HTMLElement>): Promise<void> {
  form.clearMarks();
  if (!form.check()) return;
  button.disabled = true;
  result.setAttribute('aria-busy', 'true');
  try {
    replace(result, await action());
  } catch (err) {
    replace(result, messageView('The service could not be reached', err instanceof Error ? err.message : String(err)));
  } finally {
    button.disabled = false;
    result.removeAttribute('aria-busy');
  }
}

/** Draws the console into `root` and returns a function that selects an endpoint by path. */
export function mountConsole(root: HTMLElement, catalog: readonly ConsoleEndpoint[]): (path: string) => void {
  const ui = consoleLayout(root, catalog);
  let endpoint = catalog[0]!;
  let form: ParamForm = buildParamForm(endpoint);
  const request = (): BuiltRequest => ({ origin: location.origin, path: endpoint.path, query: form.query() });
  const refreshRequest = () => {
    replace(ui.requestLine, requestUrl(request()));
    replace(ui.commands, commandsView(request()));
  };
  const choose = (path: string) => {
    endpoint = catalog.find((e) => e.path === path) ?? endpoint;
    ui.select.value = endpoint.path;
    form = buildParamForm(endpoint);
    replace(ui.fields, form.element);
    replace(
      ui.meta,
      h('strong', { class: 'price' }, endpoint.price),
      ' per call · ',
      h('span', { class: 'category-tag' }, endpoint.category),
      ` · ${endpoint.summary}`,
    );
    replace(ui.result);
    refreshRequest();
  };
  ui.form.addEventListener('input', refreshRequest);
  ui.form.addEventListener('change', refreshRequest);
  ui.select.addEventListener('change', () => choose(ui.select.value));
  ui.termsButton.addEventListener('click', () => void runAction(ui.result, ui.termsButton, form, () => showTerms(request(), form)));
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void runAction(ui.result, ui.previewButton, form, () => runPreview(request(), form));
  });
  choose(endpoint.path);
  return choose;
}
