/**
 * The console's form, built from an endpoint's parameter rules (the same the service validates
 * with): required, min/max, length, pattern, enumerations as selects, booleans as a three-way
 * select (not set / true / false: an unset flag is not the same as false), defaults as hints and
 * the catalog example filled in. Rules HTML cannot state (a pattern the browser's syntax refuses,
 * list sizes) are checked here with custom validity; the service's 400 stays the last word.
 */
import type { ConsoleEndpoint, ConsoleParam } from '../src/catalog/console-endpoint.ts';
import { h } from './dom.ts';
import { listProblem } from './param-rules.ts';

type Control = HTMLInputElement | HTMLSelectElement;

/** The built form's fields, by parameter name. */
export interface ParamForm {
  readonly element: HTMLElement;
  readonly controls: ReadonlyMap<string, Control>;
  /** The query of the filled-in fields (empty ones left out), in parameter order. */
  query(): URLSearchParams;
  /** Runs the checks; shows the browser's messages and returns false when a field is wrong. */
  check(): boolean;
  /** Marks `param` as refused by the service, with its message, and focuses it. */
  markInvalid(param: string, message: string): void;
  clearMarks(): void;
}

/** The pattern as an HTML `pattern` attribute when the browser's syntax (the `v` flag) takes it. */
function htmlPattern(pattern: string | undefined): string | null {
  if (pattern === undefined) return null;
  try {
    new RegExp(pattern, 'v');
    return pattern;
  } catch {
    return null;
  }
}

function selectOf(id: string, p: ConsoleParam, options: readonly string[], value: string | undefined): HTMLSelectElement {
  const unset = p.default === undefined ? '(not set)' : `(not set: ${p.default})`;
  const select = h('select', { id, name: p.name, required: p.required, 'aria-describedby': `${id}-hint` });
  if (!p.required) select.append(h('option', { value: '' }, unset));
  for (const o of options) select.append(h('option', { value: o, selected: o === value }, o));
  return select;
}

function inputOf(id: string, p: ConsoleParam, value: string | undefined): HTMLInputElement {
  const numeric = p.type === 'integer' || p.type === 'number';
  const input = h('input', {
    id,
    name: p.name,
    type: numeric ? 'number' : 'text',
    required: p.required,
    min: p.minimum,
    max: p.maximum,
    step: p.type === 'integer' ? 1 : numeric ? 'any' : undefined,
    minlength: p.minLength,
    maxlength: p.maxLength,
    pattern: htmlPattern(p.pattern),
    placeholder: p.default !== undefined ? `default ${p.default}` : undefined,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': `${id}-hint`,
  });
  if (value !== undefined) input.value = value;
  return input;
}

function fieldOf(endpoint: ConsoleEndpoint, p: ConsoleParam): { row: HTMLElement; control: Control } {
  const id = `param-${p.name}`;
  const value = endpoint.example[p.name];
  const control =
    p.values !== undefined ? selectOf(id, p, p.values, value) : p.type === 'boolean' ? selectOf(id, p, ['true', 'false'], value) : inputOf(id, p, value);
  const label = h('label', { for: id }, h('code', {}, p.name), ' ', h('span', { class: p.required ? 'req' : 'opt' }, p.required ? 'required' : 'optional'));
  const hint = h('p', { id: `${id}-hint`, class: 'hint' }, h('span', { class: 'rule' }, p.rule), `. ${p.description}`);
  const error = h('p', { id: `${id}-error`, class: 'field-error', hidden: true });
  return { row: h('div', { class: 'field' }, label, control, hint, error), control };
}

/** Custom checks a control needs beyond its HTML attributes. */
function customProblem(p: ConsoleParam, value: string): string {
  if (value === '') return '';
  if (p.pattern !== undefined && htmlPattern(p.pattern) === null && !new RegExp(p.pattern, 'u').test(value)) return `${p.name} must match ${p.pattern}`;
  return listProblem(p, value) ?? '';
}

/** Shows the service's refusal under the field, ties it to the field and focuses the field. */
function markField(control: Control, message: string): void {
  const error = document.getElementById(`${control.id}-error`);
  if (error) {
    error.textContent = message;
    error.hidden = false;
  }
  control.setAttribute('aria-invalid', 'true');
  control.setAttribute('aria-describedby', `${control.id}-error ${control.id}-hint`);
  control.focus();
}

function unmarkField(control: Control): void {
  control.removeAttribute('aria-invalid');
  control.setAttribute('aria-describedby', `${control.id}-hint`);
  const error = document.getElementById(`${control.id}-error`);
  if (error) error.hidden = true;
}

/** Builds the form of `endpoint`. */
export function buildParamForm(endpoint: ConsoleEndpoint): ParamForm {
  const controls = new Map<string, Control>();
  const params = new Map(endpoint.params.map((p) => [p.name, p]));
  const element = h('div', { class: 'fields' });
  if (endpoint.params.length === 0) element.append(h('p', { class: 'hint' }, 'This endpoint takes no parameters.'));
  for (const p of endpoint.params) {
    const { row, control } = fieldOf(endpoint, p);
    controls.set(p.name, control);
    control.addEventListener('input', () => {
      control.setCustomValidity(customProblem(p, control.value));
      unmarkField(control);
    });
    element.append(row);
  }
  return {
    element,
    controls,
    query() {
      const q = new URLSearchParams();
      for (const [name, control] of controls) if (control.value !== '') q.set(name, control.value);
      return q;
    },
    check() {
      for (const [name, control] of controls) control.setCustomValidity(customProblem(params.get(name)!, control.value));
      return [...controls.values()].every((c) => c.reportValidity());
    },
    markInvalid(param, message) {
      const control = controls.get(param);
      if (control) markField(control, message);
    },
    clearMarks: () => {
      for (const c of controls.values()) unmarkField(c);
    },
  };
}
