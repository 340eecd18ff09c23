/**
 * The approval-flow example of docs/durable-tasks.md: an expense waits for a manager's decision.
 * The task mails the manager a link that carries a signal token, waits for the decision (no
 * worker held, nothing polling), nudges the manager when a day passes without one, and gives
 * up after three. The link's handler, a webhook that holds only `grantSignal`, delivers the
 * decision with the token alone. Type-checked in CI, and run against the emulator with short
 * waits by test/integration/durable/approval-flow.test.ts. In an application, import from
 * 'tasklane'.
 */
import * as z from 'zod';
import { defineTask, type TaskClient } from '../src/index.js';

/** A manager's answer, as the approval page posts it. */
export const Decision = z.object({
  approved: z.boolean(),
  by: z.string().min(1),
  note: z.string().max(500).optional(),
});
export type Decision = z.infer<typeof Decision>;

/** How the task reaches people; your mailer. */
export interface Mailer {
  /** Mails the manager the approval link (the token goes in its query string). */
  askForApproval(expenseId: string, manager: string, token: string): Promise<void>;
  /** Reminds the manager; `round` counts from 1. */
  remind(expenseId: string, manager: string, round: number): Promise<void>;
  /** Tells the employee how it ended. */
  tellEmployee(expenseId: string, outcome: string): Promise<void>;
}

/** How long the task waits for a decision before each reminder, and how many it sends. */
export interface ApprovalTiming {
  readonly waitMs: number;
  readonly reminders: number;
}

/** A day per round, three reminders: four days at most. */
export const DAILY: ApprovalTiming = { waitMs: 24 * 60 * 60_000, reminders: 3 };

/** The expense approval task, bound to a mailer and a timing. */
export function approvalTask(mailer: Mailer, timing: ApprovalTiming = DAILY) {
  return defineTask('expense.approve', {
    schema: z.object({ expenseId: z.string(), manager: z.string() }),
    handler: async ({ expenseId, manager }, ctx) => {
      // Steps: a later slice (after each wait) replays them instead of mailing again.
      const token = await ctx.step('token', () => ctx.signalToken('decision'));
      await ctx.step('ask', () => mailer.askForApproval(expenseId, manager, token));
      for (let round = 0; round <= timing.reminders; round++) {
        // Each wait takes the next decision sent, in the order sent; repeated waits for one
        // signal may share its name.
        const answer = await ctx.waitForSignal('decision', {
          timeoutMs: timing.waitMs,
          schema: Decision,
        });
        if (answer.received) {
          const outcome = answer.data.approved ? 'approved' : 'rejected';
          await ctx.step('tell', () => mailer.tellEmployee(expenseId, outcome));
          return { outcome, by: answer.data.by };
        }
        if (round < timing.reminders) {
          await ctx.step(`remind-${round + 1}`, () => mailer.remind(expenseId, manager, round + 1));
        }
      }
      await ctx.step('tell', () => mailer.tellEmployee(expenseId, 'expired'));
      return { outcome: 'expired' as const };
    },
  });
}

/**
 * The approval page's handler: a webhook whose role holds only `executor.grantSignal(role)`.
 * It needs neither the task's id nor any other permission; an altered link is refused
 * (`SignalTokenError`) and writes nothing.
 */
export async function onDecision(client: TaskClient, token: string, body: unknown) {
  const decision = Decision.parse(body);
  return client.signalWithToken(token, decision);
}
