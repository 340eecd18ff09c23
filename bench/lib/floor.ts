/**
 * The request floor derived on paper from the code and docs/design.md: what one task must cost
 * at batch size `b`, assuming full batches and no idle polling. The bench compares measured
 * counts against it.
 */

/** A task's path: it succeeds at once, fails once before succeeding, or is delayed. */
export type FloorCase = 'successful' | 'retried' | 'delayed';

/** One operation of the floor: requests per task, and why. */
export interface FloorLine {
  /** `Service.Operation`, as the request counter names it. */
  readonly key: string;
  readonly perTask: number;
  readonly why: string;
}

/**
 * Tasklane's floor: a sent task stays PENDING until claimed, and the claim returns the record
 * (ADR 0020), so nothing is written after the send and nothing is read; `delayed` follows
 * docs/design.md §4 (Scheduler delivery).
 */
export function tasklaneFloor(kind: FloorCase, b: number): FloorLine[] {
  const consume = (why: string): FloorLine[] => [
    { key: 'SQS.ReceiveMessage', perTask: 1 / b, why: `the mapping receives ${b} per call${why}` },
    { key: 'SQS.DeleteMessageBatch', perTask: 1 / b, why: `the mapping deletes ${b} per call` },
    { key: 'Lambda.Invoke', perTask: 1 / b, why: `one invocation per batch of ${b}` },
  ];
  if (kind === 'delayed') {
    return [
      { key: 'DynamoDB.PutItem', perTask: 1, why: 'create the record, SCHEDULED' },
      { key: 'Scheduler.CreateSchedule', perTask: 1, why: 'one at() schedule (not billed)' },
      { key: 'Scheduler.Invocation', perTask: 1, why: 'the schedule fires once' },
      { key: 'SQS.SendMessage', perTask: 1, why: 'Scheduler sends the message, unbatched' },
      ...consume(''),
      {
        key: 'DynamoDB.UpdateItem',
        perTask: 2,
        why: 'claim (accepts a due SCHEDULED task), complete',
      },
    ];
  }
  const lines: FloorLine[] = [
    { key: 'DynamoDB.PutItem', perTask: 1, why: 'create the record, PENDING (the outbox)' },
    { key: 'SQS.SendMessageBatch', perTask: 1 / b, why: `enqueueBatch sends ${b} per call` },
    ...consume(''),
  ];
  if (kind === 'successful') {
    lines.push({
      key: 'DynamoDB.UpdateItem',
      perTask: 2,
      why: 'claim (it returns the record, so nothing reads it first), complete',
    });
    return lines;
  }
  return lines
    .map((line) =>
      line.key === 'SQS.ReceiveMessage' || line.key === 'Lambda.Invoke'
        ? { ...line, perTask: line.perTask * 2, why: `${line.why}; twice` }
        : line,
    )
    .concat([
      { key: 'DynamoDB.UpdateItem', perTask: 4, why: 'claim, retry, claim, complete' },
      {
        key: 'SQS.ChangeMessageVisibilityBatch',
        perTask: 1 / b,
        why: 'the failed message comes back after the retry delay',
      },
    ]);
}

/** The Powertools baseline's floor; it has no delayed delivery. */
export function powertoolsFloor(kind: FloorCase, b: number): FloorLine[] | undefined {
  if (kind === 'delayed') return undefined;
  const twice = kind === 'retried' ? 2 : 1;
  const lines: FloorLine[] = [
    { key: 'SQS.SendMessageBatch', perTask: 1 / b, why: `a plain SendMessageBatch of ${b}` },
    { key: 'SQS.ReceiveMessage', perTask: twice / b, why: `the mapping receives ${b} per call` },
    {
      key: 'DynamoDB.PutItem',
      perTask: twice,
      why: 'the idempotency record, INPROGRESS (conditional)',
    },
    { key: 'DynamoDB.UpdateItem', perTask: 1, why: 'the idempotency record, COMPLETED' },
    { key: 'SQS.DeleteMessageBatch', perTask: 1 / b, why: `the mapping deletes ${b} per call` },
    { key: 'Lambda.Invoke', perTask: twice / b, why: `one invocation per batch of ${b}` },
  ];
  if (kind === 'retried') {
    lines.push({ key: 'DynamoDB.DeleteItem', perTask: 1, why: 'a failure deletes the record' });
  }
  return lines;
}

/** AWS requests per task in a floor (Lambda invocations and Scheduler firings excluded). */
export function floorRequests(lines: readonly FloorLine[]): number {
  return lines
    .filter((l) => l.key.startsWith('SQS.') || l.key.startsWith('DynamoDB.'))
    .reduce((sum, l) => sum + l.perTask, 0);
}

/** DynamoDB write requests per task in a floor. */
export function floorWrites(lines: readonly FloorLine[]): number {
  return lines
    .filter((l) => /^DynamoDB\.(PutItem|UpdateItem|DeleteItem)$/.test(l.key))
    .reduce((sum, l) => sum + l.perTask, 0);
}
