import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MESSAGE_SCHEMA_VERSION } from './constants.js';
import type { TaskRecord } from './store/record.js';

/** Bodies above this size cannot be ours; they are rejected before parsing. */
const MAX_ENVELOPE_BYTES = 16 * 1024;

const envelopeSchema = z.strictObject({
  tasklane: z.literal(MESSAGE_SCHEMA_VERSION),
  id: z.string().min(1).max(128),
  type: z.string().min(1).max(128),
});

/**
 * The SQS message body. It carries only the task's identity: the payload lives in the
 * record, which the claim reads, so a message cannot smuggle a payload past validation.
 */
export type TaskEnvelope = z.infer<typeof envelopeSchema>;

/** The parameters of one SendMessage(Batch) entry for a task. */
export interface TaskMessage {
  readonly MessageBody: string;
  readonly MessageGroupId: string;
  readonly MessageDeduplicationId: string;
}

/**
 * Builds the message for a task's current generation. The deduplication id is hashed
 * because ids may be up to 128 characters and SQS allows 128 for the whole value.
 */
export function taskMessage(
  record: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'messageGroupId'>,
): TaskMessage {
  const envelope: TaskEnvelope = {
    tasklane: MESSAGE_SCHEMA_VERSION,
    id: record.id,
    type: record.type,
  };
  return {
    MessageBody: JSON.stringify(envelope),
    MessageGroupId: record.messageGroupId,
    MessageDeduplicationId: createHash('sha256')
      .update(`${record.id}#${record.generation}`)
      .digest('hex'),
  };
}

/** Result of {@link parseEnvelope}: the envelope, or why the body is not one. */
export type ParsedEnvelope =
  | { readonly ok: true; readonly envelope: TaskEnvelope }
  | { readonly ok: false; readonly reason: string };

/** Parses a message body defensively: never throws, whatever the body holds. */
export function parseEnvelope(body: string): ParsedEnvelope {
  if (Buffer.byteLength(body, 'utf8') > MAX_ENVELOPE_BYTES) {
    return { ok: false, reason: `body is larger than ${MAX_ENVELOPE_BYTES} bytes` };
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, reason: `body is not JSON (${(err as Error).message})` };
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join('.') || '(root)'}: ${i.message}`,
    );
    return { ok: false, reason: `body is not a Tasklane envelope (${problems.join('; ')})` };
  }
  return { ok: true, envelope: parsed.data };
}
