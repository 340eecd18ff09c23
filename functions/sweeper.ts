/**
 * The sweeper Lambda, invoked every minute by an EventBridge Scheduler schedule. It repairs
 * what crashes leave behind: expired leases and unsent (PENDING) tasks. The table and queue
 * come from TASKLANE_TABLE_NAME and TASKLANE_QUEUE_URL, set by the TaskExecutor construct.
 * The package's build bundles this file into dist/lambda/sweeper, which the construct deploys.
 */
import { createSweeper } from '../src/index.js';

const sweeper = createSweeper();

export const handler = () => sweeper.run();
