/**
 * What `ctx.progress(details)` accepts: a JSON value of at most
 * `Defaults.MAX_PROGRESS_BYTES` bytes. Checked in the handler's own call, so a handler learns
 * at once that its details were refused, not from a log line after the fact.
 */
import { Defaults } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { canonicalJson } from '../store/record.js';

/**
 * The details as the JSON stored on the record.
 *
 * @throws ValidationError when the details are not JSON (undefined, a function, a BigInt, a
 *   cycle, too deep) or their JSON is larger than the limit.
 */
export function progressJson(details: unknown, limitBytes: number = Defaults.MAX_PROGRESS_BYTES) {
  let json: string | undefined;
  try {
    json = details === undefined ? undefined : canonicalJson(details);
  } catch (err) {
    throw refused(
      `expected a JSON value, received one JSON cannot hold (${(err as Error).message})`,
    );
  }
  if (json === undefined) {
    throw refused(`expected a JSON value, received ${typeof details}`);
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limitBytes) {
    throw refused(`expected at most ${limitBytes} bytes of JSON, received ${bytes} bytes`);
  }
  return json;
}

function refused(message: string): ValidationError {
  return new ValidationError('progress details', [{ path: '', message }]);
}
