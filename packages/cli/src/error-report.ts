/**
 * What a failed command reports: its exit code, and the name, code and hint of the error
 * behind it. A CliError is the CLI's wording of a problem; when an SDK or AWS error caused it,
 * a script reading `--json` gets that error's name and code, not the wrapper's.
 */
import { TasklaneError } from 'tasklane';
import { CliError, EXIT_CODE_NAMES, type ExitCode, exitCodeOf, hintFor } from './exit-codes.js';

/** The `error` document `--json` prints on stdout for a failed command. */
export interface ErrorReport {
  /** The process's exit code (docs/operations.md, "Exit codes"). */
  readonly exitCode: ExitCode;
  /**
   * The error's stable code: a Tasklane error's `code` (`TASK_NOT_FOUND`, `CONFIGURATION`…),
   * an AWS error's code (`AccessDeniedException`…), a system error's (`ENOENT`…); for a
   * problem the CLI found itself, the exit code's name (`USAGE`, `NOT_CONFIRMED`…).
   */
  readonly code: string;
  /** The error's class name, e.g. `TaskNotFoundError`; `CliError` for the CLI's own. */
  readonly name: string;
  readonly message: string;
  /** How to fix it, when the CLI knows; null otherwise. */
  readonly hint: string | null;
}

/** The report of a command that failed with `err`. */
export function errorReport(err: unknown): ErrorReport {
  const exitCode = exitCodeOf(err);
  const real = underlying(err);
  return {
    exitCode,
    code: codeOf(real) ?? EXIT_CODE_NAMES[exitCode],
    name: real?.name ?? (err instanceof Error ? err.name : 'Error'),
    message: err instanceof Error ? err.message : String(err),
    hint: hintFor(err) ?? (real === undefined ? undefined : hintFor(real)) ?? null,
  };
}

/** The first error of `err`'s cause chain that is not the CLI's own wording of it. */
function underlying(err: unknown): Error | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (!(current instanceof CliError)) return current;
    current = current.cause;
  }
  return undefined;
}

function codeOf(err: Error | undefined): string | undefined {
  if (err === undefined) return undefined;
  if (err instanceof TasklaneError) return err.code;
  const { Code, code, $metadata } = err as { Code?: unknown; code?: unknown; $metadata?: unknown };
  if (typeof Code === 'string') return Code;
  // An AWS SDK service error's code is its name.
  if ($metadata !== undefined) return err.name;
  if (typeof code === 'string') return code;
  return err.name;
}
