import {
  ConfigurationError,
  ScheduleNotFoundError,
  TasklaneError,
  TaskNotFoundError,
  TransitionRejectedError,
  ValidationError,
} from 'tasklane';

/**
 * The `tasklane` command's exit codes; scripts can rely on them (docs/operations.md).
 */
export const ExitCode = {
  /** Everything asked for was done. */
  OK: 0,
  /** An unexpected error: an AWS call failed for a reason other than configuration. */
  FAILURE: 1,
  /** Bad usage: an unknown command or option, or a value that is not valid. */
  USAGE: 2,
  /** The executor cannot be reached or is not configured: location, credentials, access. */
  CONFIGURATION: 3,
  /** The task or schedule named does not exist. */
  NOT_FOUND: 4,
  /** Only part was done: some tasks were refused or skipped (the output says which). */
  PARTIAL: 5,
  /** A destructive command was not confirmed (declined, or no TTY and no --yes). */
  NOT_CONFIRMED: 6,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The name of each {@link ExitCode}, the `code` of a problem the CLI found itself. */
export const EXIT_CODE_NAMES: Readonly<Record<ExitCode, string>> = {
  [ExitCode.OK]: 'OK',
  [ExitCode.FAILURE]: 'FAILURE',
  [ExitCode.USAGE]: 'USAGE',
  [ExitCode.CONFIGURATION]: 'CONFIGURATION',
  [ExitCode.NOT_FOUND]: 'NOT_FOUND',
  [ExitCode.PARTIAL]: 'PARTIAL',
  [ExitCode.NOT_CONFIRMED]: 'NOT_CONFIRMED',
};

/** Options of {@link CliError}. */
export interface CliErrorOptions extends ErrorOptions {
  /**
   * How to fix it, printed on the line after the message (and as `hint` with `--json`).
   * The error that caused it goes in `cause`: `--json` reports that error's name and code.
   */
  readonly hint?: string;
}

/**
 * An error the CLI reports as it is: its message says what was wrong, its hint how to fix it,
 * and its cause, when there is one, is the error behind it (an SDK or AWS error).
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** The exit code for an error thrown by a command. */
export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof ValidationError) return ExitCode.USAGE;
  if (err instanceof ConfigurationError) return ExitCode.CONFIGURATION;
  if (err instanceof TaskNotFoundError || err instanceof ScheduleNotFoundError) {
    return ExitCode.NOT_FOUND;
  }
  if (err instanceof TransitionRejectedError) return ExitCode.PARTIAL;
  if (err instanceof TasklaneError) return ExitCode.FAILURE;
  return credentialsProblem(err) ? ExitCode.CONFIGURATION : ExitCode.FAILURE;
}

/**
 * How to fix `err`: a CliError's own hint, else one for the errors the SDK raises before any
 * call (no credentials, no region).
 */
export function hintFor(err: unknown): string | undefined {
  if (err instanceof CliError && err.hint !== undefined) return err.hint;
  if (!(err instanceof Error)) return undefined;
  if (err.name === 'CredentialsProviderError') {
    return 'No AWS credentials were found: configure them as for the AWS CLI (AWS_PROFILE, aws sso login, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY); for an emulator, pass --endpoint.';
  }
  if (/region is missing/i.test(err.message)) {
    return 'No AWS region is set: pass --region or set AWS_REGION.';
  }
  return undefined;
}

function credentialsProblem(err: unknown): boolean {
  return !(err instanceof CliError) && hintFor(err) !== undefined;
}
