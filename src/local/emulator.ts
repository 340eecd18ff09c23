/**
 * Local AWS emulator harness: starts a throwaway `moto_server` for tests and local runs.
 *
 * Everything here talks to loopback only. It never resolves or calls a real AWS endpoint.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type EmulatorPlan,
  type EmulatorRuntimeOptions,
  EmulatorUnavailableError,
  prepareEmulator,
} from './emulator-runtime.js';

export { EmulatorUnavailableError };

/** Options for {@link startEmulator}. */
export interface EmulatorOptions {
  /** Port to listen on. Defaults to a free loopback port picked by the OS. */
  port?: number;
  /** Interface moto binds to. Defaults to `localhost`. */
  host?: string;
  /** File that receives the server's stdout and stderr (appended). Output is discarded if unset. */
  log?: string;
  /**
   * When neither moto nor `moto_server` is found: create `.tasklane/venv` (under `cwd`) and
   * pip-install `requirements-emulator.txt` into it, showing progress on `progress`.
   * @default true
   */
  install?: EmulatorRuntimeOptions['install'];
  /** @default process.cwd() */
  cwd?: string;
  /** Where installation progress goes. @default process.stderr */
  progress?: NodeJS.WritableStream;
}

/** A running emulator started by {@link startEmulator}. */
export interface EmulatorHandle {
  /** Base URL for AWS SDK clients, e.g. `http://localhost:41234`. */
  endpoint: string;
  port: number;
  /** The server's process id. */
  pid: number | undefined;
  /** Terminates the server (SIGTERM, then SIGKILL after 5 s). Safe to call more than once. */
  stop(): Promise<void>;
  /** Wipes all emulated AWS state. Throws if the server rejects the request. */
  reset(): Promise<void>;
}

const EXECUTABLE = 'moto_server';
const READY_TIMEOUT_MS = 20_000;
const POLL_INTERVAL_MS = 100;
const STOP_GRACE_MS = 5_000;
// Enough output to show a Python traceback without flooding the error message.
const OUTPUT_TAIL_CHARS = 4_000;

const SERIAL_SERVER = fileURLToPath(new URL('./moto_server_serial.py', import.meta.url));

/**
 * The command that runs moto. Preferably our wrapper, which serializes requests so that
 * conditional writes are atomic and FIFO groups exclusive, as on AWS (see the .py file).
 * When moto cannot be imported from any Python (say, moto_server installed with pipx),
 * plain `moto_server` runs instead, with a warning that those guarantees are weaker.
 */
function serverCommand(plan: EmulatorPlan, host: string, port: number): [string, string[]] {
  if (plan.kind === 'python' && existsSync(SERIAL_SERVER)) {
    return [plan.python, [SERIAL_SERVER, '-H', host, '-p', String(port)]];
  }
  process.stderr.write(
    `warning: moto is not importable from Python; running plain ${EXECUTABLE}, whose ` +
      'concurrent conditional writes are not atomic (set TASKLANE_PYTHON to the Python that has moto).\n',
  );
  return [
    plan.kind === 'moto-server' ? plan.executable : EXECUTABLE,
    ['-H', host, '-p', String(port)],
  ];
}

/**
 * Starts `moto_server` on a loopback port and resolves once it answers HTTP. On a machine
 * without moto, it first installs it into `.tasklane/venv` (see `prepareEmulator`).
 *
 * Rejects at once with {@link EmulatorUnavailableError}, saying what to install, when moto
 * is missing and cannot be installed; and with a plain `Error` (exit code plus output tail)
 * if the server dies or stays silent for 20 s.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  // Deciding up front gives a clear error before anything is spawned; the spawn 'error'
  // handler below still covers races and unusual PATH setups.
  const plan = await prepareEmulator({
    ...(options.install === undefined ? {} : { install: options.install }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.progress === undefined ? {} : { progress: options.progress }),
  });

  const host = options.host ?? 'localhost';
  // An explicit port must be free: if another emulator already listens there, the readiness
  // probe would succeed against it and reset() would wipe someone else's state.
  const port = options.port ?? (await freeLoopbackPort());
  if (options.port !== undefined) await assertPortFree(options.port);
  // Always `localhost`: moto derives some resource URLs (e.g. SQS queue URLs) from the Host
  // header, and tests compare against them.
  const endpoint = `http://localhost:${port}`;

  const logStream = options.log ? createWriteStream(options.log, { flags: 'a' }) : undefined;
  const [command, args] = serverCommand(plan, host, port);
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  const output = captureOutput(child, logStream);

  // Safety net: never leave a moto process behind if this process exits without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const spawnFailed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ENOENT'
          ? new EmulatorUnavailableError(`${command} could not be started: ${err.message}`)
          : err,
      );
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        child.kill('SIGTERM');
        const timedOut = await Promise.race([exited.then(() => false), delay(STOP_GRACE_MS, true)]);
        if (timedOut) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      await new Promise<void>((resolve) => (logStream ? logStream.end(resolve) : resolve()));
    })();
    return stopping;
  };

  const died = exited.then(({ code, signal }) => {
    throw new Error(
      `moto_server exited before it was ready (code ${code ?? 'null'}, signal ${signal ?? 'none'}).` +
        `\n--- output tail ---\n${output.tail() || '(no output)'}`,
    );
  });

  try {
    await Promise.race([waitUntilReady(endpoint), died, spawnFailed]);
  } catch (err) {
    await stop();
    throw err;
  }
  // Later rejections are expected (normal exit after stop); keep them from surfacing as unhandled.
  died.catch(() => {});
  spawnFailed.catch(() => {});

  return {
    endpoint,
    port,
    pid: child.pid,
    stop,
    async reset() {
      if (!(await resetEmulator(endpoint))) throw new Error(`moto reset failed at ${endpoint}`);
    },
  };
}

/**
 * Wipes emulator state via moto's `POST /moto-api/reset`.
 *
 * Returns `false` when the endpoint answers but does not support reset (e.g. LocalStack), so
 * callers can fall back to unique resource names. Network failures still throw: an unreachable
 * endpoint is a setup problem worth surfacing.
 */
export async function resetEmulator(endpoint: string): Promise<boolean> {
  const res = await fetch(new URL('/moto-api/reset', endpoint), {
    method: 'POST',
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  return res.ok;
}

/**
 * Environment variables that point AWS SDK v3 clients at `endpoint` with dummy credentials.
 * The SDK reads `AWS_ENDPOINT_URL` itself, so clients need no endpoint option.
 */
export function emulatorEnvironment(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
}

/** Asks the OS for an unused port. Racy in theory, but moto binds within milliseconds. */
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${port} is already in use; pick another or omit \`port\``)
          : err,
      );
    });
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** Drains the child's pipes (so it never blocks on a full pipe) and keeps a short tail. */
function captureOutput(child: ChildProcess, logStream: WriteStream | undefined) {
  let tail = '';
  const onData = (chunk: Buffer) => {
    logStream?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return { tail: () => tail.trim() };
}

async function waitUntilReady(endpoint: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const probe = new URL('/moto-api/', endpoint);
  while (Date.now() < deadline) {
    try {
      const res = await fetch(probe, { signal: AbortSignal.timeout(1_000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await delay(POLL_INTERVAL_MS, undefined);
  }
  throw new Error(`moto_server did not answer at ${probe} within ${READY_TIMEOUT_MS / 1000} s`);
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(resolve, ms, value).unref());
}

/**
 * Moves an AWS service URL onto the emulator's origin, keeping its path: moto's
 * CloudFormation reports queue URLs on AWS's host (`https://sqs.us-east-1.amazonaws.com/…`).
 * An SQS client sends each request to its queue URL's host when that differs from the
 * endpoint it resolved (unless an `endpoint` option is set), so such a URL would leave the
 * emulator. URLs already on the emulator come back unchanged.
 */
export function onEmulator(url: string, endpoint: string): string {
  const target = new URL(endpoint);
  const moved = new URL(url);
  moved.protocol = target.protocol;
  moved.host = target.host;
  return moved.toString();
}
