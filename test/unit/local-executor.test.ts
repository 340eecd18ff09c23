import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.js';
import { startLocalExecutor } from '../../src/local/local-executor.js';

describe('startLocalExecutor', () => {
  it('refuses a real AWS endpoint, since it uses dummy credentials', async () => {
    // Arrange
    const endpoint = 'https://sqs.us-east-1.amazonaws.com';

    // Act
    const error = await startLocalExecutor({ tasks: [], endpoint, log: 'silent' }).catch(
      (err: unknown) => err,
    );

    // Assert
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ endpoint });
    expect((error as Error).message).toContain('needs an emulator');
  });
});
