/**
 * Local AWS emulator harness: starts a throwaway `moto_server` (or MiniStack, with
 * `engine: 'ministack'` or `TASKLANE_EMULATOR=ministack`) for tests and local runs.
 *
 * Everything here talks to loopback only. It never resolves or calls a real AWS endpoint.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type EmulatorEngine,
  type EngineSpec,
  engineSpec,
  resolveEngine,
} from './emulator-engine.js';
import {
  type EmulatorPlan,
  type EmulatorRuntimeOptions,
  EmulatorUnavailableError,
  prepareEmulator,
} from './emulator-runtime.js';

export type { EmulatorEngine };
export { EmulatorUnavailableError };

/** Options for {@link startEmulator}. */
export interface EmulatorOptions {
  /**
   * The engine: moto behind the correcting harness, or MiniStack (docs/emulator.md compares
   * them). @default `TASKLANE_EMULATOR`, else 'moto'
   */
  engine?: EmulatorEngine;
  /**
   * MiniStack only: let the engine fire EventBridge Scheduler schedules itself, every 10 s.
   * Off by default, because the local schedule pump delivers them (with a sender id per
   * schedule group) and both would deliver every firing. @default false
   */
  fireSchedules?: boolean;
  /** Port to listen on. Defaults to a free loopback port picked by the OS. */
  port?: number;
  /** Interface moto binds to. Defaults to `localhost`. */
  host?: string;
  /** File that receives the server's stdout and stderr (appended). Output is discarded if unset. */
  log?: string;
  /**
   * When neither moto nor `moto_server` is found: create `.tasklane/venv` (under `cwd`) and
   * pip-install `requirements-emulator.txt` into it, showing progress on `progress`. For
   * MiniStack: `.tasklane/venv-ministack` and `requirements-ministack.txt`.
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
  /** The engine that runs. */
  engine: EmulatorEngine;
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

/** The wrapper script of an engine, next to this module (copied into dist/ by the build). */
function wrapperOf(spec: EngineSpec): string {
  return fileURLToPath(new URL(`./${spec.wrapper}`, import.meta.url));
}

/**
 * The command that runs moto. Preferably our wrapper, which serializes requests so that
 * conditional writes are atomic and FIFO groups exclusive, as on AWS (see the .py file).
 * When moto cannot be imported from any Python (say, moto_server installed with pipx),
 * plain `moto_server` runs instead, with a warning that those guarantees are weaker.
 */
function serverCommand(
  spec: EngineSpec,
  plan: EmulatorPlan,
  address: { host: string; port: number; fireSchedules: boolean },
): [string, string[]] {
  const { host, port } = address;
  const wrapper = wrapperOf(spec);
  if (spec.engine === 'ministack') {
    // Only the wrapper can switch MiniStack's firing off, so it is the one way to run it.
    if (plan.kind !== 'python' || !existsSync(wrapper)) {
      throw new EmulatorUnavailableError(`${wrapper} is missing, or no Python imports ministack.`);
    }
    const fire = address.fireSchedules ? ['--fire-schedules'] : [];
    return [plan.python, [wrapper, '-H', host, '-p', String(port), ...fire]];
  }
  if (plan.kind === 'python' && existsSync(wrapper)) {
    return [plan.python, [wrapper, '-H', host, '-p', String(port)]];
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
  const engine = resolveEngine(options.engine);
  const spec = engineSpec(engine);
  // Deciding up front gives a clear error before anything is spawned; the spawn 'error'
  // handler below still covers races and unusual PATH setups.
  const plan = await prepareEmulator({
    engine,
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
  const [command, args] = serverCommand(spec, plan, {
    host,
    port,
    fireSchedules: options.fireSchedules ?? false,
  });
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
      `${spec.label} exited before it was ready (code ${code ?? 'null'}, signal ${signal ?? 'none'}).` +
        `\n--- output tail ---\n${output.tail() || '(no output)'}`,
    );
  });

  try {
    await Promise.race([waitUntilReady(endpoint, spec), died, spawnFailed]);
  } catch (err) {
    await stop();
    throw err;
  }
  // Later rejections are expected (normal exit after stop); keep them from surfacing as unhandled.
  died.catch(() => {});
  spawnFailed.catch(() => {});

  return {
    engine,
    endpoint,
    port,
    pid: child.pid,
    stop,
    async reset() {
      if (!(await postReset(endpoint, spec.resetPath))) {
        throw new Error(`${spec.label} reset failed at ${endpoint}`);
      }
    },
  };
}

/**
 * Wipes emulator state via moto's `POST /moto-api/reset`, else MiniStack's
 * `POST /_ministack/reset`.
 *
 * Returns `false` when the endpoint answers but supports neither (e.g. LocalStack), so
 * callers can fall back to unique resource names. Network failures still throw: an unreachable
 * endpoint is a setup problem worth surfacing.
 */
export async function resetEmulator(endpoint: string): Promise<boolean> {
  if (await postReset(endpoint, engineSpec('moto').resetPath)) return true;
  return postReset(endpoint, engineSpec('ministack').resetPath);
}

async function postReset(endpoint: string, resetPath: string): Promise<boolean> {
  const res = await fetch(new URL(resetPath, endpoint), {
    method: 'POST',
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  return res.ok;
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

async function waitUntilReady(endpoint: string, spec: EngineSpec): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const probe = new URL(spec.healthPath, endpoint);
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
  throw new Error(`${spec.label} did not answer at ${probe} within ${READY_TIMEOUT_MS / 1000} s`);
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
