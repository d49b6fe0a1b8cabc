/**
 * The chart `npm run bench -- NAME` writes beside its JSON (bench/results/NAME.svg): the suite's
 * own plot of that benchmark where the suite draws one (throughput, paid-call latency, ledger),
 * else the report's ratios as horizontal bars, with the line at 1 (as fast as the reference) and
 * the goal's bound when the report names one. Null when the report has neither.
 */
import { findRatios } from './run-summary.ts';
import { suitePlots } from './suite-plots.ts';

const MAX_BARS = 24;
const BAR_PX = 22;
const LABEL_PX = 420;
const PLOT_PX = 360;
const TOP_PX = 44;
const BOTTOM_PX = 34;

const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A bar chart of `bars`, with vertical guides at `marks` (value, label). */
export function ratioBarChart(
  title: string,
  bars: ReadonlyArray<{ label: string; value: number }>,
  marks: ReadonlyArray<{ at: number; label: string }>,
): string {
  const shown = bars.slice(0, MAX_BARS);
  const max = Math.max(1, ...shown.map((b) => b.value), ...marks.map((m) => m.at)) * 1.1;
  const x = (v: number): number => LABEL_PX + (Math.max(0, v) / max) * PLOT_PX;
  const height = TOP_PX + shown.length * BAR_PX + BOTTOM_PX;
  const width = LABEL_PX + PLOT_PX + 60;
  const rows = shown.map((b, i) => {
    const y = TOP_PX + i * BAR_PX;
    return [
      `<text x="${LABEL_PX - 8}" y="${y + 15}" text-anchor="end">${xmlText(b.label)}</text>`,
      `<rect x="${LABEL_PX}" y="${y + 3}" width="${(x(b.value) - LABEL_PX).toFixed(1)}" height="${BAR_PX - 6}" fill="#1f77b4"/>`,
      `<text x="${(x(b.value) + 4).toFixed(1)}" y="${y + 15}">${b.value.toFixed(2)}</text>`,
    ].join('');
  });
  const guides = marks.map(
    (m) =>
      `<line x1="${x(m.at).toFixed(1)}" x2="${x(m.at).toFixed(1)}" y1="${TOP_PX - 4}" y2="${height - BOTTOM_PX + 4}" stroke="#d62728" stroke-dasharray="4 3"/>` +
      `<text x="${x(m.at).toFixed(1)}" y="${height - BOTTOM_PX + 18}" text-anchor="middle" fill="#d62728">${xmlText(m.label)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${xmlText(title)}</text>`,
    ...rows,
    ...guides,
    '</svg>',
    '',
  ].join('\n');
}

/** The SVG for a benchmark's report, or null when there is nothing to draw. */
export function runChart(name: string, report: Record<string, unknown>): string | null {
  const plot = Object.values(suitePlots({ [name]: report }))[0];
  if (plot) return plot;
  const ratios = findRatios(report);
  if (ratios.length === 0) return null;
  const goal = findGoalBound(report);
  const marks = [{ at: 1, label: '1 (the reference)' }, ...(goal !== null && goal !== 1 ? [{ at: goal, label: `goal ${goal}` }] : [])];
  return ratioBarChart(
    `${name}: ratios`,
    ratios.map((r) => ({ label: r.path, value: r.value })),
    marks,
  );
}

/** A report's goal bound (`goal.maxRatio`), when it names one. */
function findGoalBound(report: Record<string, unknown>): number | null {
  const goal = report.goal as { maxRatio?: unknown } | undefined;
  return typeof goal?.maxRatio === 'number' ? goal.maxRatio : null;
}
