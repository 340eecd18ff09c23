/**
 * The fault suite (`npm run test:faults`): fault scenarios (test/faults), the model-based
 * test (test/model) and audit coverage, against one shared emulator. Files run one at a
 * time: they share the emulator, and each scenario's timing depends on having the machine.
 */
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Runs the files in name order (a-…, then model), so runs are comparable. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

export default defineConfig({
  test: {
    name: 'faults',
    include: ['test/faults/**/*.test.ts', 'test/model/**/*.test.ts'],
    environment: 'node',
    globalSetup: [
      'test/helpers/global-setup.ts',
      'test/helpers/cli-bundle-setup.ts',
      'test/faults/lib/global-setup.ts',
    ],
    setupFiles: ['test/helpers/setup-integration.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    // Scenario files print their table of figures; keep the output in file order.
    sequence: { shuffle: false, sequencer: ByName },
  },
});
