/**
 * The FIFO message group of a task (docs/adr/0032-parked-keys-lanes-and-groups.md). Keyed
 * tasks share their ordering key's group, which is the key itself; a task without a key gets
 * a group of its own, in a namespace that no key can enter: it starts with
 * `UNKEYED_GROUP_PREFIX`, which an ordering key may not start with. So an unkeyed task whose
 * id happens to equal some ordering key never waits in that key's group.
 */
import { createHash } from 'node:crypto';

/** The first character of every unkeyed group; ordering keys may not start with it. */
export const UNKEYED_GROUP_PREFIX = '~';

/** SQS's longest MessageGroupId. */
const MAX_GROUP_LENGTH = 128;

/**
 * The group of a task (or a schedule's firings) without an ordering key: the prefix and the
 * id, or, for an id too long to fit beside the prefix (128 characters), the prefix and the
 * id's SHA-256 in hex. Both forms start with the prefix, so neither can be a key's group;
 * two unkeyed ids share a group only through a SHA-256 collision, and sharing one would
 * only make them run one after the other.
 */
export function unkeyedGroup(id: string): string {
  const plain = `${UNKEYED_GROUP_PREFIX}${id}`;
  if (plain.length <= MAX_GROUP_LENGTH) return plain;
  return `${UNKEYED_GROUP_PREFIX}${createHash('sha256').update(id).digest('hex')}`;
}

/** The message group of a task: its ordering key's, or one of its own. */
export function messageGroupOf(task: {
  readonly id: string;
  readonly orderingKey?: string | undefined;
}): string {
  return task.orderingKey ?? unkeyedGroup(task.id);
}

/**
 * Whether a message in `group` is in `task`'s group, as the claim's fence judges it
 * (store/transitions.ts): its group, or, for an unkeyed task whose record stores none, its
 * bare id, the group older producers sent unkeyed tasks in.
 */
export function inTaskGroup(
  task: {
    readonly id: string;
    readonly orderingKey?: string | undefined;
    readonly messageGroupId: string;
  },
  group: string,
): boolean {
  if (group === task.messageGroupId) return true;
  return (
    task.orderingKey === undefined &&
    task.messageGroupId === unkeyedGroup(task.id) &&
    group === task.id
  );
}

/**
 * The ordering key a message's group names, for the task `id` it carries: none for an
 * unkeyed group, nor for the task's own id, the group of an unkeyed task sent before the
 * prefix existed (its record keeps no `messageGroupId`, and is read as its id's group).
 */
export function orderingKeyOfGroup(group: string | undefined, id: string): string | undefined {
  if (group === undefined || group === id || group.startsWith(UNKEYED_GROUP_PREFIX)) {
    return undefined;
  }
  return group;
}
