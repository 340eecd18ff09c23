/**
 * The emulator this test worker owns. The globalSetup (test/helpers/global-setup.ts) starts one
 * emulator per worker of a project, and Vitest numbers the workers running at once
 * 1..maxWorkers (`VITEST_POOL_ID`), so two files running at the same time never share one and
 * each file may reset its emulator freely. With one endpoint (AWS_ENDPOINT_URL set, or files
 * run one at a time) every worker gets that one.
 */
import { inject } from 'vitest';

export function emulatorEndpoint(): string {
  const endpoints = inject('awsEndpoints');
  const poolId = Number(process.env.VITEST_POOL_ID ?? '1');
  const endpoint = endpoints[(Math.max(1, poolId) - 1) % endpoints.length];
  if (endpoint === undefined) {
    throw new Error(
      'No emulator endpoint was provided: is test/helpers/global-setup.ts the globalSetup?',
    );
  }
  return endpoint;
}
