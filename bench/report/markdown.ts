/** Small Markdown builders for the report. */
import { formatNumber, formatRatio, formatSummary, type Summary } from '../lib/stats.js';

/** A Markdown table. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** "median (min–max)". */
export const med = (s: Summary, decimals = 1, unit = ''): string =>
  formatSummary(s, decimals, unit);

/** "1.92× (1.85–2.10)". */
export const ratio = (s: Summary, decimals = 2): string => formatRatio(s, decimals);

/** A plain number. */
export const num = (value: number, decimals = 2): string => formatNumber(value, decimals);

/** Bytes as KB with one decimal. */
export const kb = (bytes: number): string => `${formatNumber(bytes / 1024, 1)} KB`;

/** Dollars with four decimals. */
export const usd = (value: number): string => `$${value.toFixed(4)}`;

/** ✅ / ❌ for a target. */
export const met = (ok: boolean): string => (ok ? '✅ met' : '❌ missed');

/** Milliseconds as "12 min 3 s". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
