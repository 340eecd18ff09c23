import { ValidationError } from '../core/errors.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** A span of time: milliseconds, or a string such as `'90s'`, `'15m'`, `'12h'`, `'30d'`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd' | 'w'}`;

/**
 * Converts a {@link Duration} to milliseconds.
 *
 * @param subject Names the input in the error, e.g. `'--older-than'`.
 * @throws ValidationError quoting the value and the accepted forms.
 */
export function durationMs(value: unknown, subject: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(value.trim());
    const unit = match?.[2];
    if (match !== null && unit !== undefined) return Number(match[1]) * (UNIT_MS[unit] ?? 0);
  }
  throw new ValidationError(subject, [
    {
      path: '',
      message: `expected a duration such as 90s, 15m, 12h, 30d or 2w (or a number of milliseconds), received ${JSON.stringify(value)}`,
    },
  ]);
}
