import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  type EmulatorProbe,
  EmulatorUnavailableError,
  planEmulator,
  prepareEmulator,
} from '../../../src/local/emulator-runtime.js';

const nothing: EmulatorProbe = {
  preferredPython: undefined,
  preferredHasMoto: false,
  venvPython: undefined,
  python3: undefined,
  python3HasMoto: false,
  python3HasVenv: false,
  motoServer: undefined,
};
const freshMachine: EmulatorProbe = {
  ...nothing,
  python3: '/usr/bin/python3',
  python3HasVenv: true,
};

/** A directory holding executables that are shell scripts, to stand on PATH alone. */
async function binDir(scripts: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tasklane-bin-'));
  for (const [name, body] of Object.entries(scripts)) {
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
  }
  return dir;
}

/** A sink that keeps what was written. */
function recorder(): Writable & { text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, 'localhost', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('planEmulator', () => {
  it.each<[string, EmulatorProbe, ReturnType<typeof planEmulator>]>([
    [
      'TASKLANE_PYTHON when moto imports there',
      {
        ...freshMachine,
        preferredPython: '/opt/py',
        preferredHasMoto: true,
        venvPython: '/v/python',
      },
      { kind: 'python', python: '/opt/py' },
    ],
    [
      'the virtual environment made earlier',
      { ...freshMachine, venvPython: '/v/python', python3HasMoto: true },
      { kind: 'python', python: '/v/python' },
    ],
    [
      'python3 when moto imports there',
      { ...freshMachine, python3HasMoto: true, motoServer: '/bin/moto_server' },
      { kind: 'python', python: '/usr/bin/python3' },
    ],
    [
      'plain moto_server when no Python has moto',
      { ...freshMachine, motoServer: '/bin/moto_server' },
      { kind: 'moto-server', executable: '/bin/moto_server' },
    ],
    [
      'an install on a fresh machine with python3',
      freshMachine,
      { kind: 'install', python3: '/usr/bin/python3' },
    ],
  ])('chooses %s', (_, probe, expected) => {
    const plan = planEmulator(probe, { install: true });

    expect(plan).toEqual(expected);
  });

  it.each<[string, EmulatorProbe, boolean, RegExp]>([
    ['there is no python3', nothing, true, /no python3 on PATH/],
    [
      'python3 has no venv module',
      { ...freshMachine, python3HasVenv: false },
      true,
      /has no venv module/,
    ],
    ['installing is turned off', freshMachine, false, /installing it was turned off/],
    [
      'TASKLANE_PYTHON has no moto and nothing else works',
      { ...nothing, preferredPython: '/opt/py' },
      true,
      /TASKLANE_PYTHON=\/opt\/py cannot import moto/,
    ],
  ])('is unavailable when %s, saying what to install', (_, probe, install, reason) => {
    const plan = planEmulator(probe, { install });

    expect(plan.kind).toBe('unavailable');
    const message = plan.kind === 'unavailable' ? plan.message : '';
    expect(message).toMatch(reason);
    expect(message).toContain('python3-venv');
    expect(message).toContain('requirements-emulator.txt');
    expect(message).toContain('AWS_ENDPOINT_URL');
  });
});

describe('prepareEmulator', () => {
  it('fails at once when PATH has neither moto_server nor python3', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'tasklane-cwd-'));
    const started = Date.now();

    const error = await prepareEmulator({ env: { PATH: '' }, cwd }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(EmulatorUnavailableError);
    expect(error).toMatchObject({ code: 'EMULATOR_UNAVAILABLE' });
    expect((error as Error).message).toContain('Install Python 3');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('names MiniStack, its virtual environment and its requirements file when MiniStack cannot run', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'tasklane-cwd-'));

    const error = await prepareEmulator({ engine: 'ministack', env: { PATH: '' }, cwd }).catch(
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(EmulatorUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('MiniStack (TASKLANE_EMULATOR=ministack) was not found');
    expect(message).toContain('.tasklane/venv-ministack');
    expect(message).toContain('requirements-ministack.txt');
    expect(message).toContain('ministack==1.5.33');
    expect(message).not.toContain('requirements-emulator.txt');
  });

  it('fails at once when python3 cannot make a virtual environment', async () => {
    // A python3 that fails whatever it is asked (no moto, no venv module)
    const bin = await binDir({ python3: 'exit 1' });
    const cwd = await mkdtemp(path.join(tmpdir(), 'tasklane-cwd-'));

    const error = await prepareEmulator({ env: { PATH: bin }, cwd }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(EmulatorUnavailableError);
    expect((error as Error).message).toContain(`${path.join(bin, 'python3')} has no venv module`);
  });

  it('creates .tasklane/venv, shows progress, and fails fast with one message when the index is unreachable', {
    timeout: 180_000,
  }, async () => {
    // Arrange: the real Python without its site-packages (so without moto), and pip pointed
    // at a closed port with no configuration files, mirrors or local wheels.
    const real = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).stdout.trim();
    const bin = await binDir({ python3: `exec ${real} -S "$@"` });
    const cwd = await mkdtemp(path.join(tmpdir(), 'tasklane-cwd-'));
    const index = `http://localhost:${await closedPort()}/simple`;
    const progress = recorder();
    const started = Date.now();

    // Act
    const error = await prepareEmulator({
      env: {
        PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`,
        HOME: cwd,
        PIP_CONFIG_FILE: '/dev/null',
        PIP_INDEX_URL: index,
        PIP_NO_CACHE_DIR: '1',
      },
      cwd,
      progress,
    }).catch((err: unknown) => err);

    // Assert
    expect(error).toBeInstanceOf(EmulatorUnavailableError);
    expect((error as Error).message).toContain('pip could not install requirements-emulator.txt');
    expect((error as Error).message).toContain('reach its package index');
    expect((error as Error).message).toContain('AWS_ENDPOINT_URL');
    expect(progress.text()).toContain('installing the emulator into .tasklane/venv');
    expect(Date.now() - started).toBeLessThan(120_000);
  });
});
