/**
 * A TaskLogger that appends JSON lines to a file: local runs keep their terminal quiet and
 * still keep every audit event for inspection.
 */
import { createWriteStream } from 'node:fs';
import type { LogAttributes, TaskLogger } from '../observability/logger.js';

/** A logger that owns its file and must be closed. */
export interface FileLogger extends TaskLogger {
  readonly path: string;
  /** Flushes and closes the file. Safe to call more than once. */
  close(): Promise<void>;
}

/** Opens `path` for appending and returns a logger writing one JSON object per line. */
export function jsonLinesLogger(path: string): FileLogger {
  const stream = createWriteStream(path, { flags: 'a' });
  let closing: Promise<void> | undefined;
  const write = (level: string) => (message: string, attributes?: LogAttributes) => {
    if (closing !== undefined) return;
    const line = { level, time: new Date().toISOString(), message, ...attributes };
    stream.write(`${JSON.stringify(line)}\n`);
  };
  return {
    path,
    debug: write('DEBUG'),
    info: write('INFO'),
    warn: write('WARN'),
    error: write('ERROR'),
    close() {
      closing ??= new Promise((resolve) => stream.end(resolve));
      return closing;
    },
  };
}
