import { readFile, stat } from 'node:fs/promises';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { type Command, Option } from 'commander';
import type { TaskClient, TaskClientOptions } from 'tasklane';
import { EnvVars } from 'tasklane';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { clientConfig, type LocationOptions, resolveClientOptions } from '../location.js';

interface ConsoleCliOptions {
  host: string;
  port?: number;
  readOnly?: boolean;
  allowRemote?: boolean;
  /** False with `--no-auth`. */
  auth: boolean;
  tokenFile?: string;
  /** The removed `--token <secret>`, kept only to refuse it with a reason. */
  token?: string;
  /** Where the charts come from: `cloudwatch` or `records`. */
  charts?: string;
  /** The `service` dimension of the executor's metrics. */
  metricsService?: string;
}

/** The chart sources the console module offers (charts/). */
interface ChartSources {
  cloudWatchChartSource(options: {
    cloudwatch: CloudWatchClient;
    service: string;
    queueNames: readonly string[];
  }): unknown;
  recordChartSource(client: TaskClient): unknown;
  serviceFromQueue(queue: string): string | undefined;
}

/** What this command needs of the console module (`src/console/index.ts`). */
interface ConsoleModule {
  startConsole(options: {
    client: TaskClient;
    host: string;
    port?: number;
    readOnly: boolean;
    allowRemote: boolean;
    auth: boolean;
    accessToken?: string;
    charts?: unknown;
  }): Promise<{ url: string; loginUrl: string; tokenGenerated: boolean; close(): Promise<void> }>;
}

/** The console module, resolved at run time so the CLI works in builds without it. */
const CONSOLE_MODULE = '../console/index.js';

/** `tasklane console`: the local web console. */
export function registerConsole(program: Command): void {
  program
    .command('console')
    .description('the local web console (bound to 127.0.0.1 unless told otherwise)')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port (default 4680; 0 picks a free one)', portNumber)
    .option('--read-only', 'hide and refuse every action')
    .option('--allow-remote', 'allow a non-loopback --host (the token stays required)')
    .option(
      '--token-file <path>',
      'read the access token from this file (readable by you alone), instead of making one; or set TASKLANE_CONSOLE_TOKEN',
    )
    .option(
      '--no-auth',
      'no token: any program on this machine, of any user, may use the console (loopback only)',
    )
    .addOption(
      new Option(
        '--charts <source>',
        "where the charts of the last hour come from: cloudwatch (the worker's metrics) or records (the task records; the default with --endpoint)",
      ).choices(['cloudwatch', 'records']),
    )
    .option(
      '--metrics-service <name>',
      "the service dimension of the executor's metrics (default: tasklane-<name>, from the work queue <name>-work.fifo)",
    )
    .addOption(new Option('--token <secret>').hideHelp())
    .action(async (opts: ConsoleCliOptions, command: Command) => {
      const { out, client } = commandContext(command);
      if (opts.token !== undefined) {
        throw new CliError(
          '--token is no longer accepted: a secret on the command line shows in ps and in your shell history. Set TASKLANE_CONSOLE_TOKEN, or pass --token-file <path>; with neither, the console makes a token at each start and prints the address that signs you in.',
          ExitCode.USAGE,
        );
      }
      const accessToken =
        opts.tokenFile === undefined ? undefined : await readToken(opts.tokenFile);
      const module = await loadConsole();
      const taskClient = await client();
      const charts = await chartSource(
        module as unknown as ChartSources,
        taskClient,
        opts,
        command.optsWithGlobals<LocationOptions>(),
      );
      const running = await module.startConsole({
        client: taskClient,
        charts,
        host: opts.host,
        ...(opts.port === undefined ? {} : { port: opts.port }),
        readOnly: opts.readOnly === true,
        allowRemote: opts.allowRemote === true,
        auth: opts.auth,
        ...(accessToken === undefined ? {} : { accessToken }),
      });
      // The made-up token is shown once, in the address that signs in; a token of the
      // operator's own (a file, a variable) is not echoed: they chose to keep it out of view.
      const open = running.tokenGenerated ? running.loginUrl : running.url;
      if (out.json) out.data({ url: running.url, open });
      else {
        out.line(`Console at ${open} (Ctrl-C stops it)`);
        if (!opts.auth) {
          out.note(
            'No token (--no-auth): any program on this machine, of any user, can use the console; pages of other sites are still refused.',
          );
        } else if (!running.tokenGenerated) {
          out.note('Sign in with the token from TASKLANE_CONSOLE_TOKEN or --token-file.');
        }
      }
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
      await running.close();
    });
}

/**
 * The charts' source: the task records on an emulator (`--endpoint`, or `--charts
 * records`), else CloudWatch, with the service name from `--metrics-service` or the work
 * queue's name, and every lane's queue for the depth.
 */
async function chartSource(
  module: ChartSources,
  client: TaskClient,
  opts: ConsoleCliOptions,
  global: LocationOptions,
): Promise<unknown> {
  const emulator = Boolean(global.endpoint ?? process.env.AWS_ENDPOINT_URL);
  if ((opts.charts ?? (emulator ? 'records' : 'cloudwatch')) === 'records') {
    return module.recordChartSource(client);
  }
  const location: TaskClientOptions = await resolveClientOptions(global);
  const queueUrl = location.queueUrl ?? process.env[EnvVars.QUEUE_URL] ?? '';
  const lanes = Object.values(location.lanes ?? {}).map((l) => l.queueUrl ?? '');
  const queueNames = [...new Set([queueUrl, ...lanes].filter((u) => u !== ''))].map((u) =>
    u.slice(u.lastIndexOf('/') + 1),
  );
  const service = opts.metricsService ?? module.serviceFromQueue(queueUrl);
  if (service === undefined) {
    throw new CliError(
      `Cannot tell the executor's metrics service from its work queue ${JSON.stringify(queueUrl)} (the construct names it <name>-work.fifo): pass --metrics-service tasklane-<name>, or --charts records.`,
      ExitCode.USAGE,
    );
  }
  return module.cloudWatchChartSource({
    cloudwatch: new CloudWatchClient(clientConfig(global)),
    service,
    queueNames,
  });
}

function portNumber(value: string): number {
  const port = Number(value);
  if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
  throw new CliError(
    `--port expects a whole number from 0 to 65535 (0 picks a free one), received ${JSON.stringify(value)}.`,
    ExitCode.USAGE,
  );
}

/**
 * The token in `path`, without its trailing newline. A file others can read is refused,
 * as ssh refuses such a key: the token is as good as the operator's AWS credentials.
 */
async function readToken(path: string): Promise<string> {
  let text: string;
  try {
    if (process.platform !== 'win32' && ((await stat(path)).mode & 0o077) !== 0) {
      throw new CliError(
        `--token-file ${path} can be read or written by other users: chmod 600 it first.`,
        ExitCode.USAGE,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(
      `Cannot read --token-file ${path}: ${(err as Error).message}.`,
      ExitCode.USAGE,
      { cause: err },
    );
  }
  const token = text.replace(/\r?\n$/, '');
  if (token === '' || /\s/.test(token)) {
    throw new CliError(
      `--token-file ${path} must hold the token alone, on one line without spaces.`,
      ExitCode.USAGE,
    );
  }
  return token;
}

async function loadConsole(): Promise<ConsoleModule> {
  let module: Partial<ConsoleModule>;
  try {
    module = (await import(CONSOLE_MODULE)) as Partial<ConsoleModule>;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
    if (!missing || !String((err as Error).message).includes('console')) throw err;
    module = {};
  }
  if (typeof module.startConsole !== 'function') {
    throw new CliError(
      'The web console is not available in this build of tasklane (its module is missing). Use the CLI commands meanwhile (tasklane --help), or install a release that includes the console.',
      ExitCode.FAILURE,
    );
  }
  return module as ConsoleModule;
}
