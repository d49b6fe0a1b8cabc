/**
 * The console: pick an endpoint, fill in its form, see the request and its commands, ask the
 * service for the 402 terms (the paid path without payment) or run the free preview
 * (`GET /preview/<paid path>`). Results go to a polite live region, so a screen reader hears them.
 */
import type { ConsoleEndpoint } from '../src/catalog/storefront-catalog.ts';
import { decodeChallenge } from './challenge.ts';
import { commandsView, failureView, messageView, previewView, termsView } from './console-output.ts';
import { h, replace } from './dom.ts';
import { buildParamForm, type ParamForm } from './param-form.ts';
import { describePreviewFailure } from './preview-result.ts';

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

async function readJson(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

const timeFormat = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Draws the console into `root` and returns a function that selects an endpoint by path. */
export function mountConsole(root: HTMLElement, catalog: readonly ConsoleEndpoint[]): (path: string) => void {
  const select = endpointSelect(catalog);
  const meta = h('p', { class: 'endpoint-meta' });
  const fields = h('div', {});
  const termsButton = h('button', { type: 'button', class: 'secondary' }, 'Show 402 terms');
  const previewButton = h('button', { type: 'submit' }, 'Run free preview');
  const form = h(
    'form',
    { id: 'console-form', novalidate: true, 'aria-label': 'Request parameters' },
    fields,
    h('div', { class: 'actions' }, previewButton, termsButton),
  );
  const requestLine = h('code', { class: 'request-line wrap-anywhere' });
  const commands = h('div', {});
  const result = h('div', { id: 'console-result', class: 'result', 'aria-live': 'polite' });
  replace(
    root,
    h('div', { class: 'field' }, h('label', { for: 'endpoint-select' }, 'Endpoint'), select),
    meta,
    form,
    h('h3', { class: 'visually-hidden' }, 'Result'),
    result,
    h('h3', {}, 'Request'),
    h('p', {}, 'GET ', requestLine),
    commands,
  );

  let endpoint = catalog[0]!;
  let paramForm: ParamForm = buildParamForm(endpoint);
  const url = () => {
    const q = paramForm.query().toString();
    return `${location.origin}${endpoint.path}${q ? `?${q}` : ''}`;
  };
  const refreshRequest = () => {
    replace(requestLine, url());
    replace(commands, commandsView(url()));
  };
  const choose = (path: string) => {
    endpoint = catalog.find((e) => e.path === path) ?? endpoint;
    select.value = endpoint.path;
    paramForm = buildParamForm(endpoint);
    replace(fields, paramForm.element);
    replace(
      meta,
      h('strong', { class: 'price' }, endpoint.price),
      ' per call · ',
      h('span', { class: 'category-tag' }, endpoint.category),
      ` · ${endpoint.summary}`,
    );
    replace(result);
    refreshRequest();
  };
  form.addEventListener('input', refreshRequest);
  form.addEventListener('change', refreshRequest);
  select.addEventListener('change', () => choose(select.value));

  const run = async (button: HTMLButtonElement, action: () => Promise<HTMLElement>) => {
    paramForm.clearMarks();
    if (!paramForm.check()) return;
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
  };
  const refused = (res: Response, body: unknown) => {
    const failure = describePreviewFailure(res.status, body, res.headers.get('retry-after'), timeFormat);
    if (failure.param) paramForm.markInvalid(failure.param, failure.lines[0] ?? '');
    return failureView(failure, url());
  };

  termsButton.addEventListener('click', () =>
    run(termsButton, async () => {
      const res = await fetch(url(), { headers: { accept: 'application/json' } });
      if (res.status !== 402) return refused(res, await readJson(res));
      const decoded = decodeChallenge(res.headers.get('payment-required'));
      return decoded.ok ? termsView(decoded.challenge) : messageView('The 402 answer could not be read', decoded.reason);
    }),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(previewButton, async () => {
      const q = paramForm.query().toString();
      const res = await fetch(`/preview${endpoint.path}${q ? `?${q}` : ''}`, { headers: { accept: 'application/json' } });
      const body = await readJson(res);
      return res.status === 200 ? previewView(body) : refused(res, body);
    });
  });
  choose(endpoint.path);
  return choose;
}
