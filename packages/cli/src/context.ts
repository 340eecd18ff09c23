import confirm from '@inquirer/confirm';
import type { Command } from 'commander';
import { TaskClient, TaskStatus } from 'tasklane';
import { auditLogger, auditLogPath } from './audit-log.js';
import { CliError, ExitCode } from './exit-codes.js';
import { type LocationOptions, resolveClientOptions } from './location.js';
import { createOutput, type Output } from './output.js';
import { printable } from './terminal-text.js';

/** The global options every command accepts. */
export interface GlobalOptions extends LocationOptions {
  readonly json?: boolean;
  readonly yes?: boolean;
  /** Where operator actions are logged (see audit-log.ts). */
  readonly auditLog?: string;
}

/** What a command's action gets. */
export interface CommandContext {
  readonly out: Output;
  readonly options: GlobalOptions;
  /** A TaskClient for the executor the global options name. */
  client(): Promise<TaskClient>;
  /**
   * Asks before a destructive step, unless `--yes`.
   * @throws CliError (not confirmed) when declined, or when there is no terminal to ask on.
   */
  confirm(question: string): Promise<void>;
}

/** Builds the context of the command being run from its options and the global ones. */
export function commandContext(command: Command): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  const out = createOutput(options.json === true);
  let client: Promise<TaskClient> | undefined;
  return {
    out,
    options,
    client: () => {
      client ??= resolveClientOptions(options).then(
        (location) =>
          new TaskClient({
            ...location,
            logger: auditLogger(auditLogPath(options.auditLog), out),
          }),
      );
      return client;
    },
    confirm: async (question) => {
      if (options.yes === true) return;
      if (process.stdin.isTTY !== true) {
        throw new CliError(
          `${question} There is no terminal to ask on, so nothing was changed.`,
          ExitCode.NOT_CONFIRMED,
          { hint: 'Pass --yes to confirm, or --dry-run to see what would change.' },
        );
      }
      const yes = await confirm(
        { message: printable(question), default: false },
        { output: process.stderr },
      );
      if (!yes) throw new CliError('Not confirmed: nothing was changed.', ExitCode.NOT_CONFIRMED);
    },
  };
}

/** Splits a comma-separated option value, dropping blanks. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** A comma-separated list of statuses, upper-cased (`dead,queued` is `DEAD,QUEUED`). */
export function statusList(value: string): string[] {
  return commaList(value).map((s) => s.toUpperCase());
}

/**
 * The values of a status option, each a TaskStatus.
 *
 * @throws CliError (usage) quoting the unknown values and listing the statuses.
 */
export function taskStatuses(values: readonly string[], name: string): TaskStatus[] {
  const known: readonly string[] = Object.values(TaskStatus);
  const unknown = values.filter((value) => !known.includes(value));
  if (unknown.length > 0) {
    throw new CliError(
      `${name} expects one or more of ${known.join(', ')}, received ${unknown.map((v) => JSON.stringify(v)).join(', ')}.`,
      ExitCode.USAGE,
    );
  }
  return values as TaskStatus[];
}

/** A positive integer option value. @throws CliError (usage) naming the option. */
export function positiveInt(name: string, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new CliError(
        `${name} expects a whole number from 1 to ${max}, received ${JSON.stringify(value)}.`,
        ExitCode.USAGE,
      );
    }
    return n;
  };
}
