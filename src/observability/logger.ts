import { Logger } from '@aws-lambda-powertools/logger';

/** Structured attributes attached to a log line. */
export type LogAttributes = Record<string, unknown>;

/**
 * The logging surface Tasklane needs. Powertools' `Logger` satisfies it, and so does a
 * small adapter over pino, console or a test recorder.
 */
export interface TaskLogger {
  debug(message: string, attributes?: LogAttributes): void;
  info(message: string, attributes?: LogAttributes): void;
  warn(message: string, attributes?: LogAttributes): void;
  error(message: string, attributes?: LogAttributes): void;
}

/**
 * The default logger: Powertools for AWS Lambda, JSON lines on stdout, level from
 * `POWERTOOLS_LOG_LEVEL` / `AWS_LAMBDA_LOG_LEVEL` (INFO when unset).
 */
export function defaultLogger(): TaskLogger {
  const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tasklane' });
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
  };
}

/** A logger that drops everything; for embedding where another channel reports progress. */
export const silentLogger: TaskLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
