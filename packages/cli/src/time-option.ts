import { durationMs } from 'tasklane';
import { CliError, ExitCode } from './exit-codes.js';

/**
 * Parses `--since` / `--until`: a duration back from now (`15m`, `2h`, `7d`) or an ISO 8601
 * instant (`2026-11-30T12:00:00Z`).
 *
 * @throws CliError (usage) quoting the value and the accepted forms.
 */
export function instantOption(name: string, now: () => number = Date.now) {
  return (value: string): number => {
    if (/^\d+(\.\d+)?(ms|s|m|h|d|w)$/.test(value)) return now() - durationMs(value, name);
    const ms = Date.parse(value);
    if (/^\d{4}-\d{2}-\d{2}/.test(value) && Number.isFinite(ms)) return ms;
    throw new CliError(
      `${name} expects a duration back from now (e.g. 15m, 2h, 7d) or an ISO 8601 time (e.g. 2026-11-30T12:00:00Z), received ${JSON.stringify(value)}.`,
      ExitCode.USAGE,
    );
  };
}
