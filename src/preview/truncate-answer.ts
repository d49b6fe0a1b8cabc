/**
 * Applies a preview rule (src/catalog/preview-rules.ts) to a paid answer: lists cut to their
 * first items, fields withheld, and a note of exactly what was cut. It only removes; every value
 * left in the preview is the handler's own, and the answer it was given is not changed (handlers
 * may share cached objects between callers).
 */
import type { PreviewRule } from '../catalog/preview-rules.ts';
import { ServiceError } from '../errors.ts';

/** What the preview left out at one path: a cut list (`shown` of `total` items) or a withheld field. */
export type PreviewCut = { readonly shown: number; readonly total: number } | { readonly withheld: true };

/** The preview answer: `preview: true`, the truncated answer's fields, and `previewTruncated`. */
export interface PreviewAnswer {
  readonly preview: true;
  readonly previewTruncated: Readonly<Record<string, PreviewCut>>;
  readonly [field: string]: unknown;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object holding the last segment of `path`, and that segment; null when the answer lacks the path. */
function parentOf(root: Json, path: string): { readonly parent: Json; readonly field: string } | null {
  const segments = path.split('.');
  const field = segments.pop()!;
  let node: unknown = root;
  for (const s of segments) node = isObject(node) && Object.hasOwn(node, s) ? node[s] : undefined;
  return isObject(node) && Object.hasOwn(node, field) ? { parent: node, field } : null;
}

/** The preview of `answer` under `rule`; the answer must be a JSON object (every paid answer is). */
export function truncateAnswer(answer: unknown, rule: PreviewRule): PreviewAnswer {
  if (!isObject(answer)) throw new ServiceError('internal_error', 'the paid answer is not a JSON object, so it has no preview');
  // A deep copy through JSON: the answer is sent as JSON anyway, and the copy may be cut freely.
  const copy = JSON.parse(JSON.stringify(answer)) as Json;
  const truncated: Record<string, PreviewCut> = {};
  for (const [path, keep] of Object.entries(rule.cut)) {
    const at = parentOf(copy, path);
    const list = at?.parent[at.field];
    if (!at || !Array.isArray(list) || list.length <= keep) continue;
    truncated[path] = { shown: keep, total: list.length };
    at.parent[at.field] = list.slice(0, keep);
  }
  for (const path of rule.withhold) {
    const at = parentOf(copy, path);
    if (!at) continue;
    truncated[path] = { withheld: true };
    delete at.parent[at.field];
  }
  // `preview` leads the object and is true whatever the answer held (no paid answer has the field).
  return Object.assign({ preview: true as const }, copy, { preview: true as const, previewTruncated: truncated });
}
