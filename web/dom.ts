/**
 * The page builds its DOM with these helpers only: text always goes in as text nodes, never as
 * HTML, so nothing the service or the user returns can inject markup.
 */

type Child = Node | string | null | undefined | false;
type Attrs = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** An element with attributes (`false`/null/undefined are left out, `true` is an empty attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

/** Appends children, strings as text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) if (c !== null && c !== undefined && c !== false) parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
}

/** Replaces all children of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

/** The element with `id`, which the server-rendered page must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** A `<pre>` of pretty JSON, focusable so a keyboard can scroll it. */
export function jsonBlock(value: unknown, label: string): HTMLPreElement {
  return h('pre', { class: 'json', tabindex: 0, 'aria-label': label }, JSON.stringify(value, null, 2));
}

/** A block with a copy button: the text is shown as code and copied as is. */
export function copyable(text: string, label: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'copy' }, 'Copy');
  button.addEventListener('click', () => {
    void navigator.clipboard?.writeText(text).then(
      () => replace(button, 'Copied'),
      () => replace(button, 'Copy failed'),
    );
  });
  return h('div', { class: 'copyable' }, h('pre', { class: 'command', tabindex: 0, 'aria-label': label }, h('code', {}, text)), button);
}
