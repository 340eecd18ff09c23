import { Cron } from 'croner';
import { type AwsCron, parseAwsCron } from './cron.js';

/** A local date and time, as written in `at(yyyy-mm-ddThh:mm:ss)`. */
export interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** A validated EventBridge Scheduler expression. */
export type ScheduleExpression =
  | { readonly kind: 'at'; readonly text: string; readonly at: LocalDateTime }
  | {
      readonly kind: 'rate';
      readonly text: string;
      readonly value: number;
      readonly unit: 'minutes' | 'hours' | 'days';
      readonly periodMs: number;
    }
  | { readonly kind: 'cron'; readonly text: string; readonly cron: AwsCron };

/** Result of {@link parseScheduleExpression}. */
export type ExpressionParse =
  | { readonly ok: true; readonly expression: ScheduleExpression }
  | { readonly ok: false; readonly problem: string };

const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
const CRON_EXAMPLE = 'cron(0 9 ? * MON-FRI *)';
const RATE_EXAMPLE = 'rate(5 minutes)';
/** EventBridge Scheduler's cap on `ScheduleExpression`, wrapper included. */
export const MAX_EXPRESSION_LENGTH = 256;

/**
 * Parses `at(...)`, `rate(...)` or `cron(...)` the way EventBridge Scheduler reads them.
 * Never throws: a problem says what was expected and quotes what was received.
 */
export function parseScheduleExpression(text: unknown): ExpressionParse {
  if (typeof text !== 'string') {
    return {
      ok: false,
      problem: `expected a string such as ${RATE_EXAMPLE}, received ${typeof text}`,
    };
  }
  if (text.length > MAX_EXPRESSION_LENGTH) {
    return {
      ok: false,
      problem: `expected at most ${MAX_EXPRESSION_LENGTH} characters (Scheduler's limit), received ${text.length}: ${JSON.stringify(text.slice(0, 40))}…`,
    };
  }
  const match = /^(at|rate|cron)\((.*)\)$/s.exec(text.trim());
  if (!match) {
    return {
      ok: false,
      problem: `expected at(yyyy-mm-ddThh:mm:ss), ${RATE_EXAMPLE} or ${CRON_EXAMPLE}, received ${JSON.stringify(text)}`,
    };
  }
  const [, kind, body] = match as unknown as [string, 'at' | 'rate' | 'cron', string];
  if (kind === 'at') return parseAt(text, body);
  if (kind === 'rate') return parseRate(text, body);
  return parseCron(text, body);
}

function parseAt(text: string, body: string): ExpressionParse {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  const fail = (why: string): ExpressionParse => ({
    ok: false,
    problem: `expected at(yyyy-mm-ddThh:mm:ss), e.g. at(2030-01-31T09:30:00), received ${JSON.stringify(text)}${why}`,
  });
  if (!m) return fail('');
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    probe.getUTCFullYear() !== year ||
    probe.getUTCMonth() !== month - 1 ||
    probe.getUTCDate() !== day ||
    probe.getUTCHours() !== hour ||
    probe.getUTCMinutes() !== minute
  ) {
    return fail(': not a real date and time');
  }
  return {
    ok: true,
    expression: { kind: 'at', text, at: { year, month, day, hour, minute, second } },
  };
}

function parseRate(text: string, body: string): ExpressionParse {
  const m = /^(\d+) (minute|minutes|hour|hours|day|days)$/.exec(body.trim());
  const fail = (why: string): ExpressionParse => ({
    ok: false,
    problem: `expected rate(value unit) with a positive integer and minute(s), hour(s) or day(s), e.g. ${RATE_EXAMPLE}, received ${JSON.stringify(text)}${why}`,
  });
  if (!m) return fail('');
  const value = Number(m[1]);
  const unit = m[2] as string;
  if (!Number.isSafeInteger(value) || value < 1) return fail(': the value must be at least 1');
  const singular = unit.endsWith('s') ? unit.slice(0, -1) : unit;
  // Scheduler, like EventBridge rules, wants `1 minute` but `5 minutes`.
  if ((value === 1) !== (unit === singular)) {
    return fail(value === 1 ? `: write '1 ${singular}'` : `: write '${value} ${singular}s'`);
  }
  const periodMs = value * UNIT_MS[singular as keyof typeof UNIT_MS];
  return {
    ok: true,
    expression: {
      kind: 'rate',
      text,
      value,
      unit: `${singular}s` as 'minutes' | 'hours' | 'days',
      periodMs,
    },
  };
}

function parseCron(text: string, body: string): ExpressionParse {
  const parsed = parseAwsCron(body);
  if (!parsed.ok) {
    return {
      ok: false,
      problem: `expected cron(minutes hours day-of-month month day-of-week year), e.g. ${CRON_EXAMPLE}; in ${JSON.stringify(text)}: ${parsed.problem}`,
    };
  }
  try {
    // A last check by the evaluator itself, so nothing accepted here fails at firing time.
    new Cron(parsed.cron.cronerPattern, cronerOptions('UTC'));
  } catch (err) {
    return {
      ok: false,
      problem: `expected a cron expression that can fire, in ${JSON.stringify(text)}: ${(err as Error).message}`,
    };
  }
  return { ok: true, expression: { kind: 'cron', text, cron: parsed.cron } };
}

/** croner's options for AWS semantics: 7 parts, 1 = Sunday, day-of-month AND day-of-week. */
export function cronerOptions(timezone: string) {
  return {
    timezone,
    mode: '7-part' as const,
    alternativeWeekdays: true,
    // One of the two day fields is always `?` (croner's `*`), so AND gives AWS's meaning.
    domAndDow: true,
    paused: true,
  };
}

let zones: ReadonlySet<string> | undefined;

/** tzdb's spelling: segments that start with a capital (`EST5EDT`, `Etc/GMT+5`, `America/Port-au-Prince`). */
const ZONE_NAME = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * Checks an IANA time zone name, as Scheduler's `ScheduleExpressionTimezone` expects: a tzdb
 * name of at most 50 characters, spelt as tzdb spells it. Links and legacy zones without a
 * slash (`CET`, `EST5EDT`, `GMT`, `US/Eastern`) are accepted when this runtime knows them;
 * offsets (`+01:00`) and wrong case (`utc`) are not.
 *
 * @returns what is wrong, or undefined when the zone is known.
 */
export function timezoneProblem(timezone: unknown): string | undefined {
  if (typeof timezone === 'string' && timezone.length > 0 && timezone.length <= 50) {
    zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
    if (zones.has(timezone)) return undefined;
    if (ZONE_NAME.test(timezone)) {
      try {
        // Links (e.g. Asia/Calcutta, CET) are valid but absent from the canonical list.
        new Intl.DateTimeFormat('en-US', { timeZone: timezone });
        return undefined;
      } catch {
        // Reported below.
      }
    }
  }
  const received = typeof timezone === 'string' ? JSON.stringify(timezone) : typeof timezone;
  return `expected an IANA time zone such as 'Europe/Berlin', 'CET' or 'UTC', spelt as in the tz database, received ${received}`;
}
