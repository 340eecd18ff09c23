import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/core/errors.js';
import {
  EmulatorUnavailableError,
  onEmulator,
  startEmulator,
} from '../../../src/local/emulator.js';
import {
  applyEmulatorEnvironment,
  assertLoopbackEndpoint,
  emulatorEnvironment,
  restoreEnvironment,
} from '../../../src/local/emulator-env.js';

describe('emulatorEnvironment', () => {
  it('points the SDK at the endpoint with us-east-1 and dummy credentials', () => {
    expect(emulatorEnvironment('http://localhost:4566')).toEqual({
      AWS_ENDPOINT_URL: 'http://localhost:4566',
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
  });
});

describe('applyEmulatorEnvironment', () => {
  const developerShell = () => ({
    AWS_ACCESS_KEY_ID: 'ASIAREAL',
    AWS_SECRET_ACCESS_KEY: 'real-secret',
    AWS_SESSION_TOKEN: 'real-session-token',
    AWS_PROFILE: 'prod',
    AWS_ENDPOINT_URL_DYNAMODB: 'https://dynamodb.us-east-1.amazonaws.com',
    AWS_ENDPOINT_URL_SQS: 'https://sqs.us-east-1.amazonaws.com',
    AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true',
    PATH: '/usr/bin',
  });

  it('clears the session token, profiles and every variable that would bypass the endpoint', () => {
    const env: NodeJS.ProcessEnv = developerShell();

    applyEmulatorEnvironment('http://localhost:4566', env);

    expect(env).toEqual({
      AWS_ENDPOINT_URL: 'http://localhost:4566',
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      PATH: '/usr/bin',
    });
  });

  it('returns what restoreEnvironment needs to put the shell back as it was', () => {
    const env: NodeJS.ProcessEnv = developerShell();

    const previous = applyEmulatorEnvironment('http://127.0.0.1:4566', env);
    restoreEnvironment(previous, env);

    expect(env).toEqual(developerShell());
  });

  it('changes nothing for an endpoint that is not on loopback', () => {
    const env: NodeJS.ProcessEnv = developerShell();

    expect(() => applyEmulatorEnvironment('https://sqs.us-east-1.amazonaws.com', env)).toThrow(
      ConfigurationError,
    );
    expect(env).toEqual(developerShell());
  });
});

describe('assertLoopbackEndpoint', () => {
  it.each([
    'http://localhost:4566',
    'https://localhost',
    'http://127.0.0.1:5000',
    'http://127.10.20.30:5000',
    'http://[::1]:4566',
  ])('accepts %s', (endpoint) => {
    expect(() => assertLoopbackEndpoint(endpoint)).not.toThrow();
  });

  it.each([
    'https://sqs.us-east-1.amazonaws.com',
    'http://10.0.0.5:4566',
    'http://128.0.0.1:4566',
    'http://127.0.0.1.example.com:4566',
    'http://localhost.example.com:4566',
    'http://0.0.0.0:4566',
    'ftp://localhost:21',
    'not a url',
  ])('refuses %s with a ConfigurationError', (endpoint) => {
    expect(() => assertLoopbackEndpoint(endpoint)).toThrow(ConfigurationError);
  });
});

describe('onEmulator', () => {
  it("moves a queue URL from AWS's host onto the emulator, keeping account and name", () => {
    expect(
      onEmulator(
        'https://sqs.us-east-1.amazonaws.com/123456789012/shop-work.fifo',
        'http://localhost:4566',
      ),
    ).toBe('http://localhost:4566/123456789012/shop-work.fifo');
  });

  it('leaves a URL that is already on the emulator as it is', () => {
    const url = 'http://localhost:4566/123456789012/shop-work.fifo';

    expect(onEmulator(url, 'http://localhost:4566')).toBe(url);
  });
});

describe('startEmulator', () => {
  it('fails fast with EMULATOR_UNAVAILABLE when moto_server is not on PATH', async () => {
    const savedPath = process.env.PATH;
    // An empty PATH guarantees the lookup fails without spawning anything.
    process.env.PATH = '';
    try {
      // A directory of its own: a .tasklane/venv made earlier in the repository (npm run dev,
      // the install-path step) would otherwise be found and started.
      const cwd = await mkdtemp(path.join(tmpdir(), 'tasklane-cwd-'));
      const error = await startEmulator({ cwd }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(EmulatorUnavailableError);
      expect(error).toMatchObject({ code: 'EMULATOR_UNAVAILABLE' });
      expect((error as Error).message).toContain('requirements-emulator.txt');
      expect((error as Error).message).toContain('AWS_ENDPOINT_URL');
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
