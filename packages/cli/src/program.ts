import { Command, CommanderError, Option } from 'commander';
import { TasklaneError } from 'tasklane';
import { registerCancel } from './commands/cancel.js';
import { registerConsole } from './commands/console.js';
import { registerDev } from './commands/dev.js';
import { registerDlq } from './commands/dlq.js';
import { registerKeys } from './commands/keys.js';
import { registerList } from './commands/list.js';
import { registerPause } from './commands/pause.js';
import { registerPurge } from './commands/purge.js';
import { registerRedrive } from './commands/redrive.js';
import { registerSchedules } from './commands/schedules.js';
import { registerShow } from './commands/show.js';
import { registerStatus } from './commands/status.js';
import { registerTail } from './commands/tail.js';
import { errorReport } from './error-report.js';
import { ExitCode } from './exit-codes.js';
import { createOutput } from './output.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  done            1  unexpected failure     2  bad usage or value
  3  not configured or unreachable (location, credentials, access)
  4  task or schedule not found     5  partly done (see output)
  6  not confirmed (declined, or no terminal and no --yes)

Where the executor is: --stack <name> [--executor <id>], else the TASKLANE_* variables
(TASKLANE_TABLE_NAME, TASKLANE_QUEUE_URL, TASKLANE_DLQ_URL, ...); --endpoint <url> for an
emulator. AWS credentials and region come from the usual chain, as for the AWS CLI.`;

/** Builds the `tasklane` program: global options and every command. */
export function buildProgram(version: string): Command {
  const program = new Command('tasklane')
    .description('Operate a Tasklane executor: counts, tasks, dead letters, redrive, schedules.')
    .version(version)
    .option('--stack <name>', 'CloudFormation stack of the TaskExecutor (reads its outputs)')
    .option('--executor <id>', 'the TaskExecutor construct id, when the stack holds several')
    .option('--endpoint <url>', 'send every AWS call here (an emulator: moto, LocalStack)')
    .addOption(new Option('--region <region>', 'AWS region').env('AWS_REGION'))
    .option('--json', 'machine-readable output on stdout')
    .option('-y, --yes', 'do not ask before destructive commands')
    .option(
      '--audit-log <path>',
      'append operator actions, with who acted, to this file (- for stderr; default TASKLANE_AUDIT_LOG, else ~/.tasklane/audit.log)',
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError('(tasklane --help lists the commands and options)')
    .exitOverride();
  for (const register of [
    registerStatus,
    registerList,
    registerShow,
    registerDlq,
    registerRedrive,
    registerKeys,
    registerCancel,
    registerPause,
    registerPurge,
    registerSchedules,
    registerTail,
    registerDev,
    registerConsole,
  ]) {
    register(program);
  }
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/**
 * Runs the CLI and returns its exit code. Errors are printed to stderr with what was wrong
 * and how to fix it; `--json` adds a JSON error document on stdout.
 */
export async function run(argv: readonly string[], version: string): Promise<number> {
  const program = buildProgram(version);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed the message (and help for a bad command).
      if (err.exitCode === 0) return ExitCode.OK;
      return ExitCode.USAGE;
    }
    const report = errorReport(err);
    const prefix = err instanceof TasklaneError ? `${err.code}: ` : '';
    const out = createOutput(process.argv.includes('--json'));
    out.error(`${prefix}${report.message}`, report.hint ?? undefined);
    if (out.json) out.jsonLine({ error: report });
    return report.exitCode;
  }
}
