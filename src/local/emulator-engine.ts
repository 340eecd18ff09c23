/**
 * The emulator engines Tasklane can start: moto (the default, behind the correcting harness
 * `moto_server_serial.py`) and MiniStack (behind `ministack_server.py`). Each is a Python
 * package pinned whole with hashes in its own requirements file and installed into its own
 * virtual environment, so the two never share a dependency resolution (docs/emulator.md).
 */
import { ConfigurationError } from '../core/errors.js';

/** Which emulator {@link startEmulator} runs. */
export type EmulatorEngine = 'moto' | 'ministack';

/** The environment variable that picks the engine when no option does. */
export const EMULATOR_ENGINE_ENV = 'TASKLANE_EMULATOR';

/**
 * The SenderId MiniStack 1.5.33 gives every message its own Scheduler firing delivers,
 * whichever schedule group or role it fires for.
 */
export const MINISTACK_FIRING_SENDER_ID = 'AROAEXAMPLE';

/** The engines, in the order the docs list them. */
export const EMULATOR_ENGINES: readonly EmulatorEngine[] = ['moto', 'ministack'];

/** What differs between the engines when starting, probing and installing one. */
export interface EngineSpec {
  readonly engine: EmulatorEngine;
  /** What the messages call it. */
  readonly label: string;
  /** The pinned release, named in messages and docs. */
  readonly pinned: string;
  /** The virtual environment under `.tasklane/`. */
  readonly venvDir: string;
  /** The hash-pinned requirements file installed into it. */
  readonly requirements: string;
  /** A Python statement that succeeds only where the engine can run. */
  readonly importCheck: string;
  /** The wrapper script next to this module that runs the engine. */
  readonly wrapper: string;
  /** The executable a user may have installed on PATH instead (moto only). */
  readonly executable: string | undefined;
  /** GET path that answers 200 once the engine serves requests. */
  readonly healthPath: string;
  /** POST path that wipes every emulated resource. */
  readonly resetPath: string;
}

const SPECS: Readonly<Record<EmulatorEngine, EngineSpec>> = {
  moto: {
    engine: 'moto',
    label: 'moto_server',
    pinned: 'moto[server]==5.2.1',
    venvDir: 'venv',
    requirements: 'requirements-emulator.txt',
    importCheck: 'import moto.moto_server.werkzeug_app, werkzeug',
    wrapper: 'moto_server_serial.py',
    executable: 'moto_server',
    healthPath: '/moto-api/',
    resetPath: '/moto-api/reset',
  },
  ministack: {
    engine: 'ministack',
    label: 'MiniStack',
    pinned: 'ministack==1.5.33',
    venvDir: 'venv-ministack',
    requirements: 'requirements-ministack.txt',
    importCheck: 'import ministack.app, ministack.services.scheduler, hypercorn',
    wrapper: 'ministack_server.py',
    // The `ministack` command cannot take the wrapper's switches, so it is never used.
    executable: undefined,
    healthPath: '/_ministack/health',
    resetPath: '/_ministack/reset',
  },
};

/** The spec of one engine. */
export function engineSpec(engine: EmulatorEngine): EngineSpec {
  return SPECS[engine];
}

/**
 * The engine an option names, else `TASKLANE_EMULATOR`, else moto.
 *
 * @throws ConfigurationError for a value that names no engine: a typo must not silently run
 *   the other one.
 */
export function resolveEngine(
  option: EmulatorEngine | undefined,
  env: NodeJS.ProcessEnv = process.env,
): EmulatorEngine {
  const value = option ?? env[EMULATOR_ENGINE_ENV];
  if (value === undefined || value === '') return 'moto';
  if ((EMULATOR_ENGINES as readonly string[]).includes(value)) return value as EmulatorEngine;
  throw new ConfigurationError(
    `${EMULATOR_ENGINE_ENV}=${JSON.stringify(value)} names no emulator engine: expected one of ${EMULATOR_ENGINES.join(', ')}.`,
  );
}
