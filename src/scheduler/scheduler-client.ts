/**
 * The Scheduler client of the producer's and the sweeper's schedules, made from the
 * environment: a whole client (its configuration names its endpoint in error messages). The
 * worker never imports it: its client loads the SDK on first use (src/aws/sdk.ts).
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { awsClientConfig } from '../aws/clients.js';

/** A new Scheduler client from the environment. */
export function newSchedulerClient(): SchedulerClient {
  return new SchedulerClient(awsClientConfig());
}
