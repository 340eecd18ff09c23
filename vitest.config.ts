/**
 * The projects, all run by `vitest run` (`npm test`):
 * - unit: pure, no network, files in parallel.
 * - bench: the benchmark harness's own unit tests (bench/test), beside the code they test.
 * - infra: CDK Template assertions, cdk-nag and cfn-lint over the synthesized stack; no emulator.
 *   Its global setup builds the sweeper's bundle, which the construct deploys as it is.
 * - integration: one shared moto emulator (globalSetup) whose state each file resets, so files
 *   must run one at a time.
 * - contract: the AWS behaviours the guarantees rely on, checked against whatever endpoint
 *   AWS_ENDPOINT_URL names (moto through the harness by default); same setup as integration.
 * - browser: the web console in Debian's Chromium (playwright-core), against a local executor
 *   on an emulator of its own, so the other projects' resets cannot touch it.
 * - deploy: the example stack deployed into the emulator with the CDK CLI and used (about 40 s);
 *   same setup as integration.
 * Vitest runs the files of the one-at-a-time projects (integration, contract, deploy) in one
 * sequential group after the others, so no file resets the emulator under another.
 * CI (.ci/run) runs the projects in two steps, `npm run test:fast` (unit, bench, infra) and
 * `npm run test:emulator` (integration, contract, deploy, browser): a new project belongs in one
 * of them.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'bench',
          include: ['bench/test/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          // Files share one emulator and reset it in beforeAll; running two at once would wipe
          // each other's resources. This forces maxWorkers to 1 for this project only.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          // One emulator per project run, reset by each file: files run one at a time.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          environment: 'node',
          // The stack it deploys ships the sweeper's bundle, built afresh here as for infra.
          globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/sweeper-bundle-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          // Resets the shared emulator like integration does: one file at a time.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/sweeper-bundle-setup.ts'],
          // Synthesis (and, for cdk-nag, esbuild bundling) and cfn-lint take seconds.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          // One browser and one executor per file, shared by its tests in order.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
