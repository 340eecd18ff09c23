/**
 * EventBridge Scheduler's context attributes: placeholders in a target's input that the
 * service replaces at each invocation.
 */
export const SchedulerContext = {
  /** How every placeholder begins; a payload must not contain it. */
  PREFIX: '<aws.scheduler.',
  SCHEDULED_TIME: '<aws.scheduler.scheduled-time>',
  EXECUTION_ID: '<aws.scheduler.execution-id>',
  ATTEMPT_NUMBER: '<aws.scheduler.attempt-number>',
  SCHEDULE_ARN: '<aws.scheduler.schedule-arn>',
} as const;

/** Replaces each placeholder of `input` with its value in `values`. */
export function substituteContext(input: string, values: Readonly<Record<string, string>>): string {
  let out = input;
  for (const [placeholder, value] of Object.entries(values))
    out = out.split(placeholder).join(value);
  return out;
}
