/** The part of an SQS record the FIFO rule needs. */
export interface GroupedMessage {
  readonly messageId: string;
  /** MessageGroupId; undefined on a standard queue, where every message stands alone. */
  readonly groupId: string | undefined;
}

/**
 * Splits a batch into its message groups, keeping batch order inside each group. Messages
 * without a group (standard queues) each form a group of one.
 */
export function groupMessages<M extends GroupedMessage>(messages: readonly M[]): M[][] {
  const groups = new Map<string, M[]>();
  const singles: M[][] = [];
  for (const message of messages) {
    if (message.groupId === undefined) {
      singles.push([message]);
      continue;
    }
    const group = groups.get(message.groupId);
    if (group === undefined) groups.set(message.groupId, [message]);
    else group.push(message);
  }
  return [...groups.values(), ...singles];
}

/**
 * The FIFO partial-failure rule: once a message of a group fails, every later message of
 * that group in the batch is reported failed too, so none overtakes it. Returns the ids to
 * report in `batchItemFailures`, in batch order.
 */
export function fifoBatchFailures(
  messages: readonly GroupedMessage[],
  failed: ReadonlySet<string>,
): string[] {
  const blockedGroups = new Set<string>();
  const out: string[] = [];
  for (const message of messages) {
    const blocked = message.groupId !== undefined && blockedGroups.has(message.groupId);
    if (blocked || failed.has(message.messageId)) {
      out.push(message.messageId);
      if (message.groupId !== undefined) blockedGroups.add(message.groupId);
    }
  }
  return out;
}
