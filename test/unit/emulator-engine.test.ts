import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { EMULATOR_ENGINE_ENV, engineSpec, resolveEngine } from '../../src/local/emulator-engine.js';

describe('resolveEngine', () => {
  it('runs moto when neither the option nor TASKLANE_EMULATOR names an engine', () => {
    expect(resolveEngine(undefined, {})).toBe('moto');
    expect(resolveEngine(undefined, { [EMULATOR_ENGINE_ENV]: '' })).toBe('moto');
  });

  it('takes TASKLANE_EMULATOR, and the option over it', () => {
    expect(resolveEngine(undefined, { [EMULATOR_ENGINE_ENV]: 'ministack' })).toBe('ministack');
    expect(resolveEngine('moto', { [EMULATOR_ENGINE_ENV]: 'ministack' })).toBe('moto');
  });

  it('refuses a value that names no engine, listing the ones there are', () => {
    const error = (() => {
      try {
        return resolveEngine(undefined, { [EMULATOR_ENGINE_ENV]: 'localstack' });
      } catch (err) {
        return err;
      }
    })();

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('"localstack" names no emulator engine');
    expect((error as Error).message).toContain('moto, ministack');
  });
});

describe('engineSpec', () => {
  it('installs each engine into its own virtual environment from its own pinned file', () => {
    const moto = engineSpec('moto');
    const ministack = engineSpec('ministack');

    expect([moto.venvDir, moto.requirements]).toEqual(['venv', 'requirements-emulator.txt']);
    expect([ministack.venvDir, ministack.requirements]).toEqual([
      'venv-ministack',
      'requirements-ministack.txt',
    ]);
    expect(ministack.executable).toBeUndefined();
  });
});
