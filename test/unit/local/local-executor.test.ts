import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/core/errors.js';
import { startLocalExecutor } from '../../../src/local/local-executor.js';

describe('startLocalExecutor', () => {
  it('refuses a real AWS endpoint, since it uses dummy credentials', async () => {
    const endpoint = 'https://sqs.us-east-1.amazonaws.com';

    const error = await startLocalExecutor({ tasks: [], endpoint, log: 'silent' }).catch(
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ endpoint });
    expect((error as Error).message).toContain('not a loopback endpoint');
  });

  it('refuses any endpoint off this machine, not only AWS', async () => {
    const endpoint = 'http://10.0.0.5:4566';

    const error = await startLocalExecutor({ tasks: [], endpoint, log: 'silent' }).catch(
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ endpoint });
  });
});
