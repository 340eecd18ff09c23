import type { Command } from 'commander';
import type { TaskClient } from '../../client/task-client.js';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

interface ConsoleCliOptions {
  host: string;
  port?: number;
  readOnly?: boolean;
  allowRemote?: boolean;
  token?: string;
}

/** What this command needs of the console module (`src/console/index.ts`). */
interface ConsoleModule {
  startConsole(options: {
    client: TaskClient;
    host: string;
    port?: number;
    readOnly: boolean;
    allowRemote: boolean;
    accessToken?: string;
  }): Promise<{ url: string; close(): Promise<void> }>;
}

/** The console module, resolved at run time so the CLI works in builds without it. */
const CONSOLE_MODULE = '../../console/index.js';

/** `tasklane console`: the local web console. */
export function registerConsole(program: Command): void {
  program
    .command('console')
    .description('the local web console (bound to 127.0.0.1 unless told otherwise)')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port (default 4680; 0 picks a free one)', portNumber)
    .option('--read-only', 'hide and refuse every action')
    .option('--allow-remote', 'allow a non-loopback --host (needs --token too)')
    .option(
      '--token <secret>',
      'access token every request must present (or TASKLANE_CONSOLE_TOKEN)',
    )
    .action(async (opts: ConsoleCliOptions, command: Command) => {
      const { out, client } = commandContext(command);
      const module = await loadConsole();
      const running = await module.startConsole({
        client: await client(),
        host: opts.host,
        ...(opts.port === undefined ? {} : { port: opts.port }),
        readOnly: opts.readOnly === true,
        allowRemote: opts.allowRemote === true,
        ...(opts.token === undefined ? {} : { accessToken: opts.token }),
      });
      if (out.json) out.data({ url: running.url });
      else out.line(`Console at ${running.url} (Ctrl-C stops it)`);
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
      await running.close();
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
