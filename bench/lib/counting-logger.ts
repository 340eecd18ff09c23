/**
 * A producer-side logger that does what a JSON-lines logger does (one serialized line per
 * call, at INFO and above) but writes nowhere: it counts the bytes. The enqueue timing then
 * includes the audit lines' serialization without measuring a terminal.
 */
import type { LogAttributes, TaskLogger } from '../../src/index.js';

/** A logger that only counts the bytes it would have written. */
export interface CountingLogger extends TaskLogger {
  readonly bytes: number;
}

/** Creates a counting logger; debug lines are dropped, as at the default INFO level. */
export function countingLogger(service = 'tasklane'): CountingLogger {
  let bytes = 0;
  const line =
    (level: string) =>
    (message: string, attributes: LogAttributes = {}) => {
      const json = JSON.stringify({
        level,
        message,
        timestamp: new Date().toISOString(),
        service,
        ...attributes,
      });
      bytes += Buffer.byteLength(json, 'utf8') + 1;
    };
  return {
    get bytes() {
      return bytes;
    },
    debug: () => undefined,
    info: line('INFO'),
    warn: line('WARN'),
    error: line('ERROR'),
  };
}
