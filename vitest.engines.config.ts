/**
 * The engine suite (`npm run test:engines`): what only an engine that fires schedules and
 * expires items itself shows, on MiniStack (test/ministack; docs/emulator.md). Each file starts
 * its own MiniStack, installed into .tasklane/venv-ministack on first use, and waits on the
 * engine's own clocks (a 10-second schedule tick, a TTL reaper), about 2.5 minutes in all.
 * CI runs it as a step of its own, after `npm run test:emulator`; it is kept out of `npm test`
 * because its time is waiting, not testing Tasklane.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'ministack',
    include: ['test/ministack/**/*.test.ts'],
    environment: 'node',
    env: { TASKLANE_EMULATOR: 'ministack' },
    testTimeout: 150_000,
    hookTimeout: 90_000,
  },
});
