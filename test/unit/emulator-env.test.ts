import { describe, expect, it } from 'vitest';
import {
  EmulatorUnavailableError,
  emulatorEnvironment,
  onEmulator,
  startEmulator,
} from '../../src/local/emulator.js';

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
      const error = await startEmulator().catch((err: unknown) => err);
      expect(error).toBeInstanceOf(EmulatorUnavailableError);
      expect(error).toMatchObject({ code: 'EMULATOR_UNAVAILABLE' });
      expect((error as Error).message).toContain('requirements-emulator.txt');
      expect((error as Error).message).toContain('AWS_ENDPOINT_URL');
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
