import { ConfigurationError } from '../core/errors.js';
import { isDelayedScheduleName } from '../scheduler/names.js';

/**
 * Who may send a recurring schedule's firing. A firing names its own task type and
 * payload, so the worker believes one only when SQS says the scheduler role sent it
 * (docs/adr/0013-firing-admission.md).
 *
 * - `scheduler`: only messages whose SenderId is this principal id (for a role, its unique
 *   id `AROA…`; SQS reports `AROA…:<session>`, and the part before `:` is compared): the
 *   recurring schedules' role. `delayedSenderId`, the role of delayed tasks' one-time
 *   schedules (which producers create), is known only to name it in the refusal: a firing
 *   it delivered is a producer's forgery (docs/adr/0036-trust-model-hardening.md).
 * - `any`: every sender; an explicit opt-out, for a queue nobody else can send to.
 * - `unconfigured`: no sender id was given, so every firing is refused (and logged as a
 *   configuration error): a forgotten setting must not open the queue to forged firings.
 */
export type FiringSenders =
  | {
      readonly kind: 'scheduler';
      readonly senderId: string;
      readonly delayedSenderId?: string | undefined;
    }
  | { readonly kind: 'any' }
  | { readonly kind: 'unconfigured' };

/** The environment variable holding the recurring schedules' role's unique id. */
export const SCHEDULER_SENDER_ID_ENV = 'TASKLANE_SCHEDULER_SENDER_ID';

/** The environment variable holding the delayed tasks' schedule role's unique id. */
export const DELAYED_SCHEDULER_SENDER_ID_ENV = 'TASKLANE_DELAYED_SCHEDULER_SENDER_ID';

/** The value of {@link SCHEDULER_SENDER_ID_ENV} that accepts firings from any sender. */
export const ANY_SENDER = '*';

/**
 * How far past the worker's clock a firing's scheduled time may be: Scheduler never fires
 * early, so only the skew between its clock and the worker's (±30 s each) is allowed.
 */
export const FIRING_CLOCK_SKEW_MS = 60_000;

/**
 * Resolves the worker options (`false` = any sender), else the environment.
 *
 * @throws ConfigurationError when the delayed tasks' role is given the same id as the
 *   recurring one: producers' schedules deliver as that role, so its firings would be believed.
 */
export function resolveFiringSenders(
  option: string | false | undefined,
  env: NodeJS.ProcessEnv = process.env,
  delayedOption?: string | undefined,
): FiringSenders {
  if (option === false) return { kind: 'any' };
  const value = option ?? env[SCHEDULER_SENDER_ID_ENV];
  if (value === undefined || value.trim() === '') return { kind: 'unconfigured' };
  if (value.trim() === ANY_SENDER) return { kind: 'any' };
  const senderId = principalOf(value.trim());
  const delayed = (delayedOption ?? env[DELAYED_SCHEDULER_SENDER_ID_ENV])?.trim();
  if (delayed === undefined || delayed === '') return { kind: 'scheduler', senderId };
  const delayedSenderId = principalOf(delayed);
  if (delayedSenderId === senderId) {
    throw new ConfigurationError(
      `The delayed tasks' scheduler sender id (${DELAYED_SCHEDULER_SENDER_ID_ENV}) is the recurring schedules' (${SCHEDULER_SENDER_ID_ENV}), ${senderId}: expected two roles, one per schedule group, since producers' one-time schedules deliver as the delayed one`,
    );
  }
  return { kind: 'scheduler', senderId, delayedSenderId };
}

/** The principal part of a SenderId: `AROA…:<session>` becomes `AROA…`. */
export function principalOf(senderId: string): string {
  const colon = senderId.indexOf(':');
  return colon === -1 ? senderId : senderId.slice(0, colon);
}

/**
 * Why a firing may not be admitted, or undefined when it may. Pure: the sender, the
 * schedule name and the time are all checked before anything is written.
 */
export function firingProblem(
  firing: { readonly schedule: string; readonly scheduledTime: string },
  senderId: string | undefined,
  senders: FiringSenders,
  now: number,
): string | undefined {
  if (senders.kind === 'unconfigured') {
    return `firings are refused: the worker has no scheduler sender id (set ${SCHEDULER_SENDER_ID_ENV} or the schedulerSenderId option)`;
  }
  if (senders.kind === 'scheduler') {
    const sender = principalOf(senderId ?? '');
    if (senders.delayedSenderId !== undefined && sender === senders.delayedSenderId) {
      return "firing was sent by the delayed tasks' scheduler role, not the recurring schedules' role: a one-time schedule never sends a firing";
    }
    if (sender !== senders.senderId) return 'firing was not sent by the scheduler role';
  }
  if (isDelayedScheduleName(firing.schedule)) {
    return "firing names a schedule with the reserved 'task.'/'task_' prefix";
  }
  if (Date.parse(firing.scheduledTime) > now + FIRING_CLOCK_SKEW_MS) {
    return `firing is dated ${firing.scheduledTime}, later than now plus the ${FIRING_CLOCK_SKEW_MS / 1000} s skew allowance`;
  }
  return undefined;
}
