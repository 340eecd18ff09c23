/**
 * EventBridge Scheduler's cron dialect: `cron(minutes hours day-of-month month day-of-week year)`.
 *
 * Evaluation is done by croner (see occurrences.ts). This module owns what croner does not
 * check the AWS way: the six fields and their ranges (day-of-week 1-7 = SUN-SAT, years
 * 1970-2199), the rule that exactly one of day-of-month and day-of-week is `?`, and which
 * wildcards each field allows. It also rewrites the two AWS forms croner spells
 * differently (`5/15` → `5-59/15`; `L` alone in day-of-week → `7`, Saturday).
 */

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** Wildcards beyond `, - * /`. */
  readonly special: 'none' | 'dom' | 'dow';
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minutes', min: 0, max: 59, special: 'none' },
  { name: 'hours', min: 0, max: 23, special: 'none' },
  { name: 'day-of-month', min: 1, max: 31, special: 'dom' },
  { name: 'month', min: 1, max: 12, names: MONTHS, special: 'none' },
  { name: 'day-of-week', min: 1, max: 7, names: DAYS, special: 'dow' },
  { name: 'year', min: 1970, max: 2199, special: 'none' },
];

/** A validated AWS cron expression. */
export interface AwsCron {
  /** The six fields as given. */
  readonly fields: readonly string[];
  /** The same schedule in croner's 7-part dialect (seconds first). */
  readonly cronerPattern: string;
  /** Minutes and hours the expression allows; used to skip wall times that DST removes. */
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
}

/** Result of {@link parseAwsCron}. */
export type CronParse =
  | { readonly ok: true; readonly cron: AwsCron }
  | { readonly ok: false; readonly problem: string };

/** Parses the inside of `cron(...)`. Never throws. */
export function parseAwsCron(body: string): CronParse {
  const fields = body.trim().split(/\s+/);
  if (fields.length !== 6) {
    return {
      ok: false,
      problem: `expected 6 fields (minutes hours day-of-month month day-of-week year), found ${fields.length}`,
    };
  }
  const problems: string[] = [];
  const translated: string[] = [];
  const sets: Set<number>[] = [];
  for (const [i, spec] of FIELDS.entries()) {
    const field = fields[i] as string;
    const result = parseField(field, spec);
    if (typeof result === 'string') problems.push(`${spec.name} '${field}': ${result}`);
    else {
      translated.push(result.translated);
      sets.push(result.values);
    }
  }
  const dom = fields[2];
  const dow = fields[4];
  if ((dom === '?') === (dow === '?')) {
    problems.push(
      `exactly one of day-of-month and day-of-week must be '?', received '${dom}' and '${dow}'`,
    );
  }
  if (problems.length > 0) return { ok: false, problem: problems.join('; ') };
  return {
    ok: true,
    cron: {
      fields,
      cronerPattern: `0 ${translated.join(' ')}`,
      minutes: sets[0] as Set<number>,
      hours: sets[1] as Set<number>,
    },
  };
}

/** Parses one field; returns the croner spelling and the plain values it covers, or a problem. */
function parseField(
  field: string,
  spec: FieldSpec,
): { translated: string; values: Set<number> } | string {
  const values = new Set<number>();
  if (field === '?') {
    if (spec.special === 'none') return "'?' is only allowed in day-of-month and day-of-week";
    return { translated: '?', values };
  }
  const parts = field.split(',');
  const out: string[] = [];
  for (const part of parts) {
    const special = parseSpecial(part, spec);
    if (special !== undefined) {
      if (special.startsWith('!')) return special.slice(1);
      if (parts.length > 1) return `'${part}' cannot be combined with other values`;
      out.push(special);
      continue;
    }
    const item = parseItem(part, spec, values);
    if (typeof item === 'object') return item.problem;
    out.push(item);
  }
  return { translated: out.join(','), values };
}

/**
 * The `L`, `W` and `#` forms. Returns the croner spelling, a problem prefixed with `!`, or
 * undefined when `part` is not one of them.
 */
function parseSpecial(part: string, spec: FieldSpec): string | undefined {
  const upper = part.toUpperCase();
  if (spec.special === 'dom') {
    if (upper === 'L' || upper === 'LW') return upper;
    const w = /^(\d{1,2})W$/.exec(upper);
    if (w) {
      const day = Number(w[1]);
      return day >= 1 && day <= 31 ? upper : `!${day} is outside 1-31`;
    }
    if (/[LW]/.test(upper)) return `!expected L, LW or nW (n = 1-31), received '${part}'`;
  }
  if (spec.special === 'dow') {
    if (upper === 'L') return '7';
    const last = /^([1-7]|[A-Z]{3})L$/.exec(upper);
    if (last) {
      const day = dayNumber(last[1] as string);
      return day === undefined ? `!unknown day '${last[1]}'` : `${day}L`;
    }
    const nth = /^([1-7]|[A-Z]{3})#([1-5])$/.exec(upper);
    if (nth) {
      const day = dayNumber(nth[1] as string);
      return day === undefined ? `!unknown day '${nth[1]}'` : `${day}#${nth[2]}`;
    }
    if (/[L#]/.test(upper)) {
      return `!expected L, nL or n#k (n = 1-7 or SUN-SAT, k = 1-5), received '${part}'`;
    }
  }
  if (spec.special === 'none' && /[LW#]/i.test(upper) && !spec.names) {
    return `!L, W and # are only allowed in day-of-month and day-of-week`;
  }
  return undefined;
}

function dayNumber(token: string): number | undefined {
  if (/^\d$/.test(token)) return Number(token);
  const index = DAYS.indexOf(token);
  return index < 0 ? undefined : index + 1;
}

/** One list item: `*`, `n`, `a-b`, with an optional `/step`. Adds what it covers to `values`. */
function parseItem(
  part: string,
  spec: FieldSpec,
  values: Set<number>,
): string | { problem: string } {
  const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(part);
  if (!match) {
    return {
      problem: `expected a value, a range a-b, * or a step (*/n, a/n, a-b/n), received '${part}'`,
    };
  }
  const [, base, stepText] = match as unknown as [string, string, string | undefined];
  const step = stepText === undefined ? 1 : Number(stepText);
  if (step < 1 || step > spec.max - spec.min + 1) {
    return { problem: `step ${stepText} is outside 1-${spec.max - spec.min + 1}` };
  }
  let from: number;
  let to: number;
  if (base === '*') {
    from = spec.min;
    to = spec.max;
  } else {
    const [a, b] = base.split('-') as [string, string | undefined];
    const lo = value(a, spec);
    if (typeof lo === 'string') return { problem: lo };
    from = lo;
    if (b === undefined) {
      // `a/n` means "from a, every n": croner wants it spelled as a range.
      to = stepText === undefined ? lo : spec.max;
    } else {
      const hi = value(b, spec);
      if (typeof hi === 'string') return { problem: hi };
      if (hi < lo) return { problem: `range ${a}-${b} runs backwards` };
      to = hi;
    }
  }
  for (let v = from; v <= to; v += step) values.add(v);
  if (base === '*') return stepText === undefined ? '*' : `*/${step}`;
  if (from === to && stepText === undefined) return String(from);
  return stepText === undefined ? `${from}-${to}` : `${from}-${to}/${step}`;
}

function value(token: string, spec: FieldSpec): number | string {
  if (/^\d+$/.test(token)) {
    const n = Number(token);
    if (n < spec.min || n > spec.max) return `${n} is outside ${spec.min}-${spec.max}`;
    return n;
  }
  const index = spec.names?.indexOf(token.toUpperCase()) ?? -1;
  if (index < 0) {
    const names = spec.names === undefined ? '' : ` or ${spec.names[0]}-${spec.names.at(-1)}`;
    return `'${token}' is not a number in ${spec.min}-${spec.max}${names}`;
  }
  return index + 1;
}
