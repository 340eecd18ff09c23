/**
 * Global setup of the infra and deploy projects: builds the sweeper's bundle, which the
 * TaskExecutor construct deploys as it is (an installed package ships it; a checkout has it
 * after `npm run build`). Built afresh on every run, so it is never older than the source.
 */
import { bundleSweeper } from '../../scripts/build/sweeper.js';

export default async function setup(): Promise<void> {
  await bundleSweeper();
}
