/**
 * What the console writes into its result area: the decoded 402 terms (one card per network), a
 * preview answer, a refused preview with what to do next, and the commands of a paid call.
 */
import type { Challenge } from './challenge.ts';
import { copyable, h, jsonBlock } from './dom.ts';
import type { PreviewFailure } from './preview-result.ts';
import { type BuiltRequest, cliCall, cliKeySetup, paidCurl, requestUrl, termsCurl } from './shell.ts';

const row = (term: string, ...value: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...value)];

/** The commands of a request: the paid call with curl, the CLI, and (unless `paidOnly`) the terms. */
export function commandsView(request: BuiltRequest, paidOnly = false): HTMLElement {
  const url = requestUrl(request);
  return h(
    'div',
    { class: 'commands' },
    h(
      'p',
      { class: 'command-label' },
      'Paid call with curl (',
      h('code', {}, '$PAYMENT'),
      ' is the base64 x402 payment payload your client signs for one of the terms):',
    ),
    copyable(paidCurl(url), 'curl command of the paid call'),
    h('p', { class: 'command-label' }, 'Or let the CLI pay with the official x402 client, from a key file made and funded once (on the embedded localnet):'),
    copyable(cliKeySetup(request), 'CLI commands that make and fund the key file'),
    copyable(cliCall(request), 'CLI command of the paid call'),
    paidOnly ? '' : h('p', { class: 'command-label' }, 'Without payment the same request answers 402 with the terms:'),
    paidOnly ? '' : copyable(termsCurl(url), 'curl command that shows the terms'),
  );
}

/** A card's title: the chain, and for a channel option what it is (a deposit once, then vouchers). */
const optionTitle = (o: Challenge['options'][number]): string =>
  o.scheme === 'batch-settlement' ? `Pay on ${o.chain} through a payment channel` : `Pay on ${o.chain}`;

/** The decoded challenge: one card per payment option, then the whole JSON. */
export function termsView(challenge: Challenge): HTMLElement {
  const cards = challenge.options.map((o) =>
    h(
      'article',
      { class: 'term', 'aria-label': optionTitle(o) },
      h('h4', {}, optionTitle(o)),
      h(
        'dl',
        { class: 'facts' },
        ...row('Network', h('code', {}, o.network)),
        ...row('Amount', h('strong', {}, o.usd), ` (${o.amount} atomic units, USDC with 6 decimals)`),
        ...row('Pay to', h('code', { class: 'wrap-anywhere' }, o.payTo)),
        ...row('Asset', h('code', { class: 'wrap-anywhere' }, o.asset)),
        ...row('Expires', o.maxTimeoutSeconds === null ? 'not stated' : `${o.maxTimeoutSeconds} s after the challenge`),
        ...row('Scheme', h('code', {}, o.scheme)),
      ),
    ),
  );
  return h(
    'div',
    { class: 'terms' },
    h('h3', {}, '402 Payment Required: the terms'),
    h(
      'p',
      {},
      `Pay one of these ${challenge.options.length} options and repeat the request with the payment. `,
      challenge.resource ? h('span', {}, 'Resource: ', h('code', { class: 'wrap-anywhere' }, challenge.resource)) : '',
    ),
    h('div', { class: 'term-cards' }, ...cards),
    h('details', {}, h('summary', {}, 'Decoded PAYMENT-REQUIRED header'), jsonBlock(challenge.raw, 'decoded PAYMENT-REQUIRED JSON')),
  );
}

/** What a preview left out, one line per path: `holders: 3 of 20 shown`, `components: withheld`. */
export function truncationLines(body: unknown): string[] {
  const cuts = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).previewTruncated : undefined;
  if (typeof cuts !== 'object' || cuts === null) return [];
  return Object.entries(cuts as Record<string, { shown?: number; total?: number; withheld?: boolean }>).map(([path, cut]) =>
    cut.withheld ? `${path}: withheld` : `${path}: ${cut.shown} of ${cut.total} shown`,
  );
}

/** A preview's 200 answer. */
export function previewView(body: unknown): HTMLElement {
  const cuts = truncationLines(body);
  return h(
    'div',
    { class: 'preview' },
    h('h3', {}, 'Free preview'),
    h('p', {}, 'The live answer, marked ', h('code', {}, '"preview": true'), ', without receipt or ledger entry. The paid call answers in full.'),
    cuts.length > 0
      ? h('div', { class: 'note' }, h('p', {}, 'Left out of the preview:'), h('ul', {}, ...cuts.map((c) => h('li', {}, h('code', {}, c)))))
      : h('p', { class: 'note' }, 'Nothing was left out of this one.'),
    jsonBlock(body, 'preview answer JSON'),
  );
}

/** A refused request (preview or terms), with the paid way when the preview quota is used up. */
export function failureView(failure: PreviewFailure, request: BuiltRequest): HTMLElement {
  return h(
    'div',
    { class: `failure failure-${failure.kind}` },
    h('h3', {}, failure.title),
    ...failure.lines.map((l) => h('p', {}, l)),
    failure.kind === 'limit' ? commandsView(request, true) : '',
  );
}

/** A message without details (network failure, unexpected answer). */
export function messageView(title: string, text: string): HTMLElement {
  return h('div', { class: 'failure failure-error' }, h('h3', {}, title), h('p', {}, text));
}
