/**
 * The message the baselines send: the task itself, since they keep no record of it. Tasklane
 * sends only `{ tasklane, id, type }` and keeps the payload in DynamoDB.
 */
export interface BaselineMessage {
  readonly id: string;
  readonly type: 'bench.noop' | 'bench.failOnce';
  readonly payload: { readonly i: number };
}

/** The SendMessageBatch entry of one baseline task; each task is its own message group. */
export function baselineEntry(
  message: BaselineMessage,
  index: number,
): { Id: string; MessageBody: string; MessageGroupId: string; MessageDeduplicationId: string } {
  return {
    Id: String(index),
    MessageBody: JSON.stringify(message),
    MessageGroupId: message.id,
    MessageDeduplicationId: message.id,
  };
}

/** True when the baseline task must fail this delivery: a fail-once task on first receipt. */
export function failsThisTime(body: string, receiveCount: string): boolean {
  return (JSON.parse(body) as BaselineMessage).type === 'bench.failOnce' && receiveCount === '1';
}
