/**
 * What the free daily preview (`GET /preview/<paid path>`, docs/preview.md) shows of each paid
 * answer: one rule per paid path, as data in the path's catalog entry (endpoints.ts). A rule only
 * removes: lists are cut to their first items and detail fields are withheld, so a person can
 * judge what the endpoint returns without the preview standing in for the paid call. The rules
 * are applied generically (src/preview/truncate-answer.ts) and rendered into the docs table by
 * scripts/generate-docs.ts.
 */

/** How many items a cut list keeps unless its rule says otherwise. */
export const PREVIEW_LIST_ITEMS = 3;

/**
 * Paths are dotted field names from the top of the answer (`series.recent`). A path that an
 * answer lacks (a failed part, an optional field) is left alone: nothing is cut there.
 */
export interface PreviewRule {
  /** Lists kept to their first N items, by path. */
  readonly cut: Readonly<Record<string, number>>;
  /** Fields left out of the preview, by path. */
  readonly withhold: readonly string[];
}
