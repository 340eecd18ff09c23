/**
 * OpenTelemetry tracing (docs/tracing.md): the producer's span is stored with the task and
 * carried on its message; each attempt is a span linked to it, with the task's id, type,
 * attempt and outcome; the handler's spans and durable steps' are its children. Spans are
 * read from the SDK's in-memory exporter.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = trace.getTracer('app');
let executor: TestExecutor;

beforeAll(() => {
  provider.register();
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

beforeEach(async () => {
  executor = await setupExecutor();
  exporter.reset();
});

/** Enqueues inside an active span of the app; returns the task id and the span's context. */
async function enqueueTraced(task: ReturnType<typeof defineTask>, payload: object) {
  return tracer.startActiveSpan('checkout', async (span) => {
    const { id } = await executor.client().enqueue(task, payload);
    span.end();
    return { id, producer: span.spanContext() };
  });
}

const attempts = (id: string): ReadableSpan[] =>
  exporter
    .getFinishedSpans()
    .filter((s) => s.attributes['tasklane.task.id'] === id)
    .sort(
      (a, b) =>
        Number(a.attributes['tasklane.task.attempt']) -
        Number(b.attributes['tasklane.task.attempt']),
    );

describe('tracing', () => {
  it('stores the producer span with the task and links the attempt span to it', async () => {
    const task = defineTask('traced.ok', {
      schema: z.object({ n: z.number() }),
      handler: async () => {
        await tracer.startActiveSpan('charge card', async (span) => span.end());
        return 'done';
      },
    });
    const { id, producer } = await enqueueTraced(task, { n: 1 });
    const record = await executor.store.get(id);
    const [message] = await executor.receive({ visibilityTimeout: 0 });

    await executor.drain(executor.worker([task]));

    const traceparent = `00-${producer.traceId}-${producer.spanId}-01`;
    expect(record?.traceparent).toBe(traceparent);
    expect(message?.messageAttributes.traceparent?.stringValue).toBe(traceparent);
    const [attempt] = attempts(id);
    expect(attempt?.name).toBe('process traced.ok');
    expect(attempt?.kind).toBe(SpanKind.CONSUMER);
    expect(attempt?.links.map((l) => l.context)).toEqual([
      expect.objectContaining({ traceId: producer.traceId, spanId: producer.spanId }),
    ]);
    expect(attempt?.attributes).toMatchObject({
      'tasklane.task.id': id,
      'tasklane.task.type': 'traced.ok',
      'tasklane.task.attempt': 1,
      'tasklane.task.outcome': 'succeeded',
      'messaging.system': 'aws_sqs',
    });
    const child = exporter.getFinishedSpans().find((s) => s.name === 'charge card');
    expect(child?.parentSpanContext?.spanId).toBe(attempt?.spanContext().spanId);
    expect(child?.spanContext().traceId).toBe(attempt?.spanContext().traceId);
  });

  it('makes each attempt a span: a failed one with its error, then the one that succeeds', async () => {
    let calls = 0;
    const task = defineTask('traced.flaky', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
      handler: () => {
        calls += 1;
        if (calls === 1) throw new Error('card declined');
        return 'ok';
      },
    });
    const { id, producer } = await enqueueTraced(task, {});
    const worker = executor.worker([task]);

    while ((await executor.store.get(id))?.status !== 'SUCCEEDED') {
      await executor.drain(worker);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const spans = attempts(id);
    expect(spans.map((s) => s.attributes['tasklane.task.outcome'])).toEqual([
      'retry-scheduled',
      'succeeded',
    ]);
    expect(spans[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'card declined' });
    expect(spans[0]?.events.map((e) => e.name)).toContain('exception');
    expect(spans.every((s) => s.links[0]?.context.spanId === producer.spanId)).toBe(true);
  });

  it('makes a durable step a child span of its attempt', async () => {
    const task = defineTask('traced.steps', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const charged = await ctx.step('charge', () => 'charged');
        return charged;
      },
    });
    const { id } = await enqueueTraced(task, {});

    await executor.drain(executor.worker([task]));

    const [attempt] = attempts(id);
    const step = exporter.getFinishedSpans().find((s) => s.name === 'step charge');
    expect(step?.attributes['tasklane.step.name']).toBe('charge');
    expect(step?.parentSpanContext?.spanId).toBe(attempt?.spanContext().spanId);
  });

  it("ends a slice's span as continued, and the next slice's as succeeded", async () => {
    let slices = 0;
    const task = defineTask('traced.slices', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        slices += 1;
        return slices === 1 ? ctx.continue() : 'done';
      },
    });
    const { id } = await enqueueTraced(task, {});
    const worker = executor.worker([task]);

    while ((await executor.store.get(id))?.status !== 'SUCCEEDED') await executor.drain(worker);

    const outcomes = exporter
      .getFinishedSpans()
      .filter((s) => s.attributes['tasklane.task.id'] === id)
      .map((s) => s.attributes['tasklane.task.outcome']);
    expect(outcomes).toEqual(['continued', 'succeeded']);
  });

  it('stores no trace context outside a span, and starts attempts without a link', async () => {
    const task = defineTask('traced.none', { schema: z.object({}), handler: () => 'ok' });
    const { id } = await executor.client().enqueue(task, {});

    await executor.drain(executor.worker([task]));

    expect((await executor.store.get(id))?.traceparent).toBeUndefined();
    expect(attempts(id)[0]?.links).toEqual([]);
  });

  it('traces nothing with tracing: false, in the producer and the worker', async () => {
    const task = defineTask('traced.off', { schema: z.object({}), handler: () => 'ok' });
    const { id } = await tracer.startActiveSpan('checkout', async (span) => {
      const out = await executor.client({ tracing: false }).enqueue(task, {});
      span.end();
      return out;
    });

    await executor.drain(executor.worker([task], { tracing: false }));

    expect((await executor.store.get(id))?.traceparent).toBeUndefined();
    expect(attempts(id)).toEqual([]);
  });
  it('runs a task whose stored or carried traceparent is invalid, unlinked, and logs why', async () => {
    const task = defineTask('traced.bad', { schema: z.object({}), handler: () => 'ok' });
    const stored = await enqueueTraced(task, {});
    await executor.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: executor.tableName,
        Key: marshall({ [TableSchema.PARTITION_KEY]: stored.id }),
        UpdateExpression: 'SET traceparent = :t',
        ExpressionAttributeValues: marshall({ ':t': 'not-a-traceparent' }),
      }),
    );
    const [fromRecord] = await executor.receive({ visibilityTimeout: 0 });
    const carried = await executor.client({ tracing: false }).enqueue(task, {});
    const [plain] = (await executor.receive({ visibilityTimeout: 0 })).filter(
      (m) => m.messageId !== fromRecord?.messageId,
    );
    if (fromRecord === undefined || plain === undefined) throw new Error('no messages received');
    const badAttribute = `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`;
    const forged = {
      ...plain,
      messageAttributes: { traceparent: { dataType: 'String', stringValue: badAttribute } },
    };
    const logger = recordingLogger();

    // The record's invalid value is not carried: the message holds only the enqueue's valid one.
    await executor.deliver(executor.worker([task], { logger }), [fromRecord, forged]);

    expect((await executor.store.get(stored.id))?.status).toBe('SUCCEEDED');
    expect((await executor.store.get(carried.id))?.status).toBe('SUCCEEDED');
    // The batch runs both at once, so their lines may come in either order.
    const ignored = logger.lines.filter((l) => l.message.startsWith('traceparent ignored'));
    const sources = ignored.map((l) => [l.attributes.taskId, l.attributes.source]);
    expect(sources).toHaveLength(2);
    expect(sources).toEqual(
      expect.arrayContaining([
        [stored.id, 'record'],
        [carried.id, 'message attribute'],
      ]),
    );
    const forgedLine = ignored.find((l) => l.attributes.taskId === carried.id);
    expect(forgedLine?.attributes.reason).toContain(`non-zero ids, received "${badAttribute}"`);
    // The record's is ignored; the message still carries the producer's valid one, linked.
    expect(attempts(stored.id)[0]?.links.map((l) => l.context.spanId)).toEqual([
      stored.producer.spanId,
    ]);
    expect(attempts(carried.id)[0]?.links).toEqual([]);
  });
});
