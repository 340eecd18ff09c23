import { ConfigurationError } from './errors.js';

/** Where an executor's resources are. Every field can also come from the environment. */
export interface ExecutorLocation {
  /** The task table. Env: `TASKLANE_TABLE_NAME`. */
  readonly tableName?: string | undefined;
  /** The FIFO work queue's URL. Env: `TASKLANE_QUEUE_URL`. */
  readonly queueUrl?: string | undefined;
}

/** Environment variables read by {@link resolveLocation}; the CDK construct sets them on its functions. */
export const EnvVars = {
  TABLE_NAME: 'TASKLANE_TABLE_NAME',
  QUEUE_URL: 'TASKLANE_QUEUE_URL',
  DLQ_URL: 'TASKLANE_DLQ_URL',
} as const;

/**
 * Fills an executor's location from explicit options, then the environment.
 *
 * @throws ConfigurationError naming every missing setting at once.
 */
export function resolveLocation(
  options: ExecutorLocation,
  env: NodeJS.ProcessEnv = process.env,
): { tableName: string; queueUrl: string } {
  const tableName = options.tableName ?? env[EnvVars.TABLE_NAME];
  const queueUrl = options.queueUrl ?? env[EnvVars.QUEUE_URL];
  const missing: string[] = [];
  if (tableName === undefined || tableName === '')
    missing.push(`tableName (or ${EnvVars.TABLE_NAME})`);
  if (queueUrl === undefined || queueUrl === '') missing.push(`queueUrl (or ${EnvVars.QUEUE_URL})`);
  if (tableName === undefined || queueUrl === undefined || missing.length > 0) {
    throw new ConfigurationError(
      `Tasklane is not configured: missing ${missing.join(' and ')}. Pass them as options or set the environment variables.`,
    );
  }
  return { tableName, queueUrl };
}
