/**
 * Finds a way to run moto, and on a fresh machine makes one: a virtual environment under
 * `.tasklane/venv` with `requirements-emulator.txt` installed by pip. When that cannot work
 * (no Python 3, no venv module, the package index unreachable) it fails at once, with one
 * message that says what to install.
 *
 * {@link planEmulator} is the decision, a pure function over what {@link probeEmulator}
 * found, so every branch is tested without touching the machine.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, existsSync, constants as fsConstants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EmulatorEngine, type EngineSpec, engineSpec } from './emulator-engine.js';

/** What is on this machine, as far as running moto goes. */
export interface EmulatorProbe {
  /** `TASKLANE_PYTHON`, when set: the Python the user wants, with or without moto. */
  readonly preferredPython: string | undefined;
  /** Whether moto imports in `preferredPython`. */
  readonly preferredHasMoto: boolean;
  /** The virtual environment's Python, when `.tasklane/venv` exists and moto imports in it. */
  readonly venvPython: string | undefined;
  /** `python3` on PATH, when there is one. */
  readonly python3: string | undefined;
  /** Whether moto imports in `python3`. */
  readonly python3HasMoto: boolean;
  /** Whether `python3 -m venv` can work (the venv and ensurepip modules import). */
  readonly python3HasVenv: boolean;
  /** `moto_server` on PATH (for example installed with pipx), when there is one. */
  readonly motoServer: string | undefined;
}

/** How to run moto, or why it cannot run. */
export type EmulatorPlan =
  /** Run the serializing wrapper with this Python, which imports moto. */
  | { readonly kind: 'python'; readonly python: string }
  /** Run plain `moto_server`: it works, without the wrapper's atomicity (see emulator.ts). */
  | { readonly kind: 'moto-server'; readonly executable: string }
  /** Create the virtual environment with this `python3`, install moto into it, then run it. */
  | { readonly kind: 'install'; readonly python3: string }
  /** Nothing can run moto here; `message` says what to install. */
  | { readonly kind: 'unavailable'; readonly message: string };

/** Where the state lives, relative to the working directory. */
export const STATE_DIR = '.tasklane';

/** The ways around installing, said with every failure. */
const OTHER_WAYS =
  'Or install moto yourself with `pip install --require-hashes -r requirements-emulator.txt` ' +
  '(moto[server]==5.2.1), or set AWS_ENDPOINT_URL to an emulator that is already running ' +
  '(LocalStack, MiniStack).';

/** What to install when there is no usable Python. */
export const INSTALL_HINT =
  'Install Python 3 with its venv module (e.g. `apt install python3 python3-venv`, ' +
  '`brew install python`), then run again: Tasklane installs the emulator into ' +
  `.tasklane/venv by itself. ${OTHER_WAYS}`;

/**
 * How the emulator is installed: `python -m pip` with these arguments, then the requirements
 * file. `--require-hashes` makes pip install only the files whose SHA-256 the file pins, for
 * every package moto brings along, so a compromised or substituted release on the index is
 * refused (docs/security.md, "The dev harness").
 */
export const PIP_INSTALL_ARGS = [
  '-m',
  'pip',
  'install',
  '--disable-pip-version-check',
  '--require-hashes',
  '--retries',
  '1',
  '--timeout',
  '10',
  '-r',
] as const;

/** What to do when pip failed. */
const PIP_HINT = `Check that pip can reach its package index (PIP_INDEX_URL, a proxy), then run again. ${OTHER_WAYS}`;

/**
 * Decides how to run moto. In order: the Python the user named, if moto imports there; the
 * virtual environment made earlier; `python3` with moto; plain `moto_server`; a new virtual
 * environment (when allowed); else unavailable, saying why.
 */
export function planEmulator(found: EmulatorProbe, options: { install: boolean }): EmulatorPlan {
  if (found.preferredPython !== undefined && found.preferredHasMoto) {
    return { kind: 'python', python: found.preferredPython };
  }
  if (found.venvPython !== undefined) return { kind: 'python', python: found.venvPython };
  if (found.python3 !== undefined && found.python3HasMoto) {
    return { kind: 'python', python: found.python3 };
  }
  if (found.motoServer !== undefined) return { kind: 'moto-server', executable: found.motoServer };
  const preferred =
    found.preferredPython === undefined
      ? ''
      : `TASKLANE_PYTHON=${found.preferredPython} cannot import moto. `;
  if (found.python3 === undefined) {
    return {
      kind: 'unavailable',
      message: `${preferred}moto_server was not found, and there is no python3 on PATH to install it with. ${INSTALL_HINT}`,
    };
  }
  if (!found.python3HasVenv) {
    return {
      kind: 'unavailable',
      message:
        `${preferred}moto_server was not found, and ${found.python3} has no venv module ` +
        `to install it with. ${INSTALL_HINT}`,
    };
  }
  if (!options.install) {
    return {
      kind: 'unavailable',
      message: `${preferred}moto_server was not found (installing it was turned off). ${INSTALL_HINT}`,
    };
  }
  return { kind: 'install', python3: found.python3 };
}

/** Options of {@link probeEmulator} and {@link prepareEmulator}. */
export interface EmulatorRuntimeOptions {
  /**
   * The engine to find or install: moto into `.tasklane/venv` from
   * `requirements-emulator.txt`, MiniStack into `.tasklane/venv-ministack` from
   * `requirements-ministack.txt`. The probe's `…HasMoto` fields then mean "has this engine".
   * @default 'moto'
   */
  readonly engine?: EmulatorEngine;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The directory `.tasklane/` lives in. @default process.cwd() */
  readonly cwd?: string;
  /** Create `.tasklane/venv` and install moto when nothing else can run it. @default true */
  readonly install?: boolean;
  /** Receives the installation's progress. @default process.stderr */
  readonly progress?: NodeJS.WritableStream;
}

/** Looks at the machine: PATH, `TASKLANE_PYTHON`, `.tasklane/venv`. Runs Python a few times. */
export function probeEmulator(options: EmulatorRuntimeOptions = {}): EmulatorProbe {
  const env = options.env ?? process.env;
  const spec = engineSpec(options.engine ?? 'moto');
  const check = spec.importCheck;
  const venvPython = venvPythonPath(options.cwd ?? process.cwd(), spec);
  const preferredPython = env.TASKLANE_PYTHON || undefined;
  const python3 = findExecutable('python3', env);
  return {
    preferredPython,
    preferredHasMoto: preferredPython !== undefined && imports(preferredPython, check, env),
    venvPython: existsSync(venvPython) && imports(venvPython, check, env) ? venvPython : undefined,
    python3,
    python3HasMoto: python3 !== undefined && imports(python3, check, env),
    python3HasVenv: python3 !== undefined && imports(python3, 'import venv, ensurepip', env),
    motoServer: spec.executable === undefined ? undefined : findExecutable(spec.executable, env),
  };
}

/** Thrown when `moto_server` cannot be found, run or installed. */
export class EmulatorUnavailableError extends Error {
  readonly code = 'EMULATOR_UNAVAILABLE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'EmulatorUnavailableError';
  }
}

/**
 * Probes, plans and, when the plan says so, installs moto into `.tasklane/venv`, showing
 * pip's progress. Returns a plan that runs.
 *
 * @throws EmulatorUnavailableError saying what to install.
 */
export async function prepareEmulator(
  options: EmulatorRuntimeOptions = {},
): Promise<Exclude<EmulatorPlan, { kind: 'install' | 'unavailable' }>> {
  const spec = engineSpec(options.engine ?? 'moto');
  const plan = planEmulator(probeEmulator(options), { install: options.install ?? true });
  if (plan.kind === 'unavailable') {
    throw new EmulatorUnavailableError(
      spec.engine === 'moto' ? plan.message : ministackMessage(plan.message),
    );
  }
  if (plan.kind !== 'install') return plan;
  return { kind: 'python', python: await installEmulator(plan.python3, options) };
}

/** planEmulator speaks of moto; the same decision for MiniStack names its own files. */
function ministackMessage(message: string): string {
  return message
    .replaceAll(
      'moto_server was not found',
      'MiniStack (TASKLANE_EMULATOR=ministack) was not found',
    )
    .replaceAll('cannot import moto', 'cannot import ministack')
    .replaceAll('.tasklane/venv', '.tasklane/venv-ministack')
    .replaceAll('requirements-emulator.txt', 'requirements-ministack.txt')
    .replaceAll('moto[server]==5.2.1', engineSpec('ministack').pinned)
    .replaceAll('install moto yourself', 'install MiniStack yourself');
}

/**
 * `python3 -m venv .tasklane/venv`, then pip-installs the requirements into it. pip gives
 * up quickly on an unreachable index (one retry, 10 s timeout) so a machine without
 * network fails in seconds, not minutes.
 */
async function installEmulator(python3: string, options: EmulatorRuntimeOptions): Promise<string> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const out = options.progress ?? process.stderr;
  const spec = engineSpec(options.engine ?? 'moto');
  const requirements = findRequirements(spec.requirements);
  const venv = path.join(cwd, STATE_DIR, spec.venvDir);
  const python = venvPythonPath(cwd, spec);
  out.write(
    `tasklane: ${spec.label} was not found; installing the emulator into ${path.relative(cwd, venv) || venv} (${spec.pinned}, once)\n`,
  );
  await mkdir(path.dirname(venv), { recursive: true });
  await run(
    python3,
    ['-m', 'venv', venv],
    { env, out },
    () => `\`${python3} -m venv ${venv}\` failed.`,
    INSTALL_HINT,
  );
  await run(
    python,
    [...PIP_INSTALL_ARGS, requirements],
    { env, out },
    () => `pip could not install ${spec.requirements} into ${venv}.`,
    PIP_HINT,
  );
  if (!imports(python, spec.importCheck, env)) {
    throw new EmulatorUnavailableError(
      `pip installed ${spec.requirements} into ${venv}, but ${spec.engine} does not import there. ${INSTALL_HINT}`,
    );
  }
  out.write('tasklane: emulator installed\n');
  return python;
}

/** Runs a command, streaming its output to `out`; throws with its tail when it fails. */
async function run(
  command: string,
  args: readonly string[],
  io: { env: NodeJS.ProcessEnv; out: NodeJS.WritableStream },
  failure: () => string,
  hint: string,
): Promise<void> {
  const child: ChildProcess = spawn(command, args, {
    env: io.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const forward = (chunk: Buffer) => {
    io.out.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-2_000);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const code = await new Promise<number | string>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    child.once('close', (status) => resolve(status ?? 'killed'));
  });
  if (code !== 0) {
    const lastLines = tail.trim().split('\n').slice(-3).join(' | ');
    throw new EmulatorUnavailableError(
      `${failure()}${lastLines === '' ? '' : ` Last output: ${lastLines}`} ${hint}`,
    );
  }
}

function venvPythonPath(cwd: string, spec: EngineSpec): string {
  const bin =
    process.platform === 'win32' ? path.join('Scripts', 'python.exe') : path.join('bin', 'python');
  return path.join(cwd, STATE_DIR, spec.venvDir, bin);
}

function imports(python: string, statement: string, env: NodeJS.ProcessEnv): boolean {
  return spawnSync(python, ['-c', statement], { stdio: 'ignore', env }).status === 0;
}

/** The executable's path on `env.PATH`, or undefined. */
export function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** A requirements file of the package: next to `src/` in the repository, or in the package root. */
function findRequirements(file: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    const candidate = path.join(dir, file);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new EmulatorUnavailableError(
    `${file} was not found next to the tasklane package. ${INSTALL_HINT}`,
  );
}
