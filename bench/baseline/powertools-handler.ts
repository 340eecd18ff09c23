/**
 * The Powertools baseline as a Lambda entry, bundled for the package-size and cold-init
 * measurements. The idempotency table comes from IDEMPOTENCY_TABLE_NAME.
 */
import { createPowertoolsHandler } from './powertools-worker.js';

export const handler = createPowertoolsHandler({
  tableName: process.env.IDEMPOTENCY_TABLE_NAME ?? 'idempotency',
});
