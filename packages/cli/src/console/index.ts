/**
 * The web console (`tasklane console`): a local server of server-rendered pages over the
 * SDK, using the operator's own credentials. Bound to 127.0.0.1 and behind a token made at
 * each start by default; see docs/operations.md#console for its safety rules.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { TaskClientOptions } from 'tasklane';
import { ConfigurationError, TaskClient } from 'tasklane';
import type { ChartSource } from './charts/chart-data.js';
import { assertBindAllowed, isLoopbackHost, newToken } from './safety.js';
import { createConsoleApp } from './server.js';

export type { ChartData, ChartSeries, ChartSource } from './charts/chart-data.js';
export {
  type CloudWatchChartOptions,
  cloudWatchChartSource,
  serviceFromQueue,
} from './charts/cloudwatch-charts.js';
export { type RecordChartOptions, recordChartSource } from './charts/record-charts.js';
export { assertBindAllowed, isLoopbackHost, MIN_ACCESS_TOKEN_LENGTH } from './safety.js';
export { createConsoleApp } from './server.js';

/** The port the console listens on unless told otherwise. */
export const DEFAULT_CONSOLE_PORT = 4680;

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  /** The client to read and act through. @default a TaskClient built from `location` */
  readonly client?: TaskClient;
  /** Where the executor is, when no `client` is given. @default the TASKLANE_* variables */
  readonly location?: TaskClientOptions;
  /** The address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** The port; 0 picks a free one. @default DEFAULT_CONSOLE_PORT */
  readonly port?: number;
  /** Hide and refuse every action. @default false */
  readonly readOnly?: boolean;
  /**
   * Require the access token: every request must be signed in with it (the browser trades
   * it for a session cookie; scripts send `Authorization: Bearer`). `false` lets anything
   * that can reach the port use the console, and is refused beyond loopback.
   * @default true
   */
  readonly auth?: boolean;
  /**
   * The access token, at least 16 characters.
   * @default the TASKLANE_CONSOLE_TOKEN variable, else a fresh random token (see `loginUrl`)
   */
  readonly accessToken?: string;
  /** Allow binding a non-loopback address (the token stays required). @default false */
  readonly allowRemote?: boolean;
  /**
   * Where the overview's charts come from (`cloudWatchChartSource` on AWS,
   * `recordChartSource` on an emulator). @default the task records, through the client
   */
  readonly charts?: ChartSource;
  /** How often a live page reads its data again, in ms. @default 3000 */
  readonly liveIntervalMs?: number;
}

/** A running console. */
export interface RunningConsole {
  /** Where it answers, e.g. `http://127.0.0.1:4680/`. */
  readonly url: string;
  /**
   * The address that signs a browser in: `url` with `?token=` when the token is required,
   * else `url`. It holds the secret: show it to the operator once, log it nowhere.
   */
  readonly loginUrl: string;
  /** True when the console made its own token (it is only in `loginUrl`). */
  readonly tokenGenerated: boolean;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the console and resolves once it listens.
 *
 * @throws ConfigurationError for a non-loopback `host` without `allowRemote` or with `auth:
 *   false`, for a token shorter than 16 characters or given with `auth: false` (every
 *   problem at once); and when the port is taken or the address cannot be bound.
 */
export async function startConsole(options: ConsoleOptions = {}): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth !== false;
  const given = options.accessToken ?? (process.env.TASKLANE_CONSOLE_TOKEN || undefined);
  assertBindAllowed({ host, allowRemote: options.allowRemote === true, auth, accessToken: given });
  const accessToken = auth ? (given ?? newToken()) : undefined;
  const client = options.client ?? new TaskClient(options.location ?? {});
  const app = createConsoleApp({
    client,
    csrfToken: newToken(),
    readOnly: options.readOnly === true,
    accessToken,
    loopbackOnly: isLoopbackHost(host),
    ...(options.charts === undefined ? {} : { charts: options.charts }),
    ...(options.liveIntervalMs === undefined ? {} : { liveIntervalMs: options.liveIntervalMs }),
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  const wanted = options.port ?? DEFAULT_CONSOLE_PORT;
  await new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => reject(listenError(err, host, wanted));
    server.once('error', fail);
    server.listen(wanted, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const url = `http://${shown}:${port}/`;
  return {
    url,
    loginUrl: accessToken === undefined ? url : `${url}?token=${encodeURIComponent(accessToken)}`,
    tokenGenerated: accessToken !== undefined && given === undefined,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  if (err.code === 'EADDRINUSE') {
    return new ConfigurationError(
      `the console cannot listen on ${where}: the port is in use; pass another --port (0 picks a free one)`,
      { cause: err },
    );
  }
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES') {
    return new ConfigurationError(
      `the console cannot listen on ${where} (${err.code}): pass a --host this machine has and a --port above 1023`,
      { cause: err },
    );
  }
  return err;
}
