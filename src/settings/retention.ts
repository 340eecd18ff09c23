import { Defaults } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { EnvVars } from './location.js';

/**
 * How long a finished task (SUCCEEDED or CANCELLED) is kept, and so how long its id stays
 * reserved: a number of milliseconds after it finished, or `'forever'` (no TTL is written).
 * DEAD tasks never expire: they wait for a redrive or a purge. A ROLLED_BACK task (a delayed
 * enqueue that threw) is kept as long, but reserves nothing: an enqueue of its id replaces it.
 */
export type Retention = number | 'forever';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What is wrong with a retention setting, if anything.
 *
 * @returns what was expected and what was received, or undefined when valid.
 */
export function retentionIssue(value: unknown): string | undefined {
  if (value === 'forever') return undefined;
  const min = Defaults.MIN_RETENTION_MS;
  const max = Defaults.MAX_RETENTION_MS;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) {
    return undefined;
  }
  return (
    `expected 'forever' or an integer number of milliseconds from ${min} (1 minute) ` +
    `to ${max} (${max / DAY_MS} days), received ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`
  );
}

/**
 * Validates a retention setting.
 *
 * @returns the value, once checked.
 * @throws ValidationError saying what was received and what is accepted.
 */
export function checkRetention(value: Retention, path = 'retention'): Retention {
  const message = retentionIssue(value);
  if (message !== undefined) throw new ValidationError('retention', [{ path, message }]);
  return value;
}

/**
 * The retention to use: the explicit option, else `TASKLANE_RETENTION_MS` (set by the
 * TaskExecutor construct on its functions), else 30 days.
 *
 * @throws ValidationError for an invalid option or environment value.
 */
export function resolveRetention(
  option: Retention | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Retention {
  if (option !== undefined) return checkRetention(option);
  const raw = env[EnvVars.RETENTION_MS];
  if (raw === undefined || raw.trim() === '') return Defaults.RETENTION_MS;
  const text = raw.trim();
  if (text === 'forever') return text;
  const parsed = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(parsed)) {
    throw new ValidationError('retention', [
      {
        path: EnvVars.RETENTION_MS,
        message: `expected 'forever' or an integer number of milliseconds, received ${JSON.stringify(raw)}`,
      },
    ]);
  }
  return checkRetention(parsed, EnvVars.RETENTION_MS);
}

/** The TTL attribute's value (epoch seconds) for a task finished at `finishedAt`; none when kept forever. */
export function expiresAtSeconds(finishedAt: number, retention: Retention): number | undefined {
  return retention === 'forever' ? undefined : Math.floor((finishedAt + retention) / 1000);
}
