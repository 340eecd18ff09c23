import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { awsClientConfig } from '../aws/clients.js';
import { clientOnFirstSend, loadEventBridge } from '../aws/sdk.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LifecycleEvent } from './lifecycle-event.js';

/** PutEvents accepts at most this many entries per request. */
export const PUT_EVENTS_MAX_ENTRIES = 10;
/** PutEvents accepts at most this many bytes per request (all entries together). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

/** Sends lifecycle events somewhere; says, per event, whether it was accepted. */
export interface EventPublisher {
  /** Resolves to one flag per event, in order: true when the event was accepted. Never throws. */
  publish(events: readonly LifecycleEvent[]): Promise<readonly boolean[]>;
}

/**
 * What the worker's events publish with, read when the worker is made: the publisher the app
 * gave, or the bus, source and client of EventBridge's. The publisher itself is made with the
 * events' code, on first use ({@link eventPublisher}, docs/adr/0070-store-parts-on-first-use.md).
 */
export type EventSettings =
  | { readonly publisher: EventPublisher }
  | {
      readonly publisher?: undefined;
      readonly client?: EventBridgeClient | undefined;
      readonly eventBus: string;
      readonly source: string;
    };

/** Where {@link EventBridgePublisher} sends. */
export interface EventBridgeTarget {
  readonly client: EventBridgeClient;
  /** Bus name or ARN; `default` is the account's default bus. */
  readonly eventBus: string;
  /** The events' `source`: `tasklane.<executor name>`. */
  readonly source: string;
  readonly logger: TaskLogger;
}

/**
 * Publishes to EventBridge in as few PutEvents calls as the limits allow: up to 10 entries
 * and 256 KB per call. A call that throws fails all its entries; a partly failed call fails
 * only the entries EventBridge reported (`ErrorCode`).
 */
export class EventBridgePublisher implements EventPublisher {
  constructor(private readonly target: EventBridgeTarget) {}

  async publish(events: readonly LifecycleEvent[]): Promise<readonly boolean[]> {
    const entries = events.map((event) => this.entry(event));
    const accepted = new Array<boolean>(events.length).fill(false);
    for (const chunk of chunkEntries(entries)) {
      try {
        const { PutEventsCommand } = await loadEventBridge();
        const out = await this.target.client.send(
          new PutEventsCommand({ Entries: chunk.map((i) => entries[i] as PutEventsRequestEntry) }),
        );
        chunk.forEach((index, n) => {
          accepted[index] =
            out.Entries?.[n]?.ErrorCode === undefined && out.Entries?.[n] !== undefined;
        });
        if ((out.FailedEntryCount ?? 0) > 0) {
          this.target.logger.warn('EventBridge refused some lifecycle events', {
            failed: out.FailedEntryCount,
            errors: [...new Set(out.Entries?.map((e) => e.ErrorCode).filter(Boolean))],
          });
        }
      } catch (err) {
        this.target.logger.warn('PutEvents failed', {
          entries: chunk.length,
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        });
      }
    }
    return accepted;
  }

  private entry(event: LifecycleEvent): PutEventsRequestEntry {
    return {
      EventBusName: this.target.eventBus,
      Source: this.target.source,
      DetailType: event.detailType,
      Detail: JSON.stringify(event.detail),
      Resources: [],
    };
  }
}

/**
 * The publisher `settings` describe: the app's own, or EventBridge's, whose client (when the
 * app gave none) is made, and its package loaded, when the first events are published.
 */
export function eventPublisher(settings: EventSettings, logger: TaskLogger): EventPublisher {
  if (settings.publisher !== undefined) return settings.publisher;
  return new EventBridgePublisher({
    client:
      settings.client ??
      clientOnFirstSend(
        async () => new (await loadEventBridge()).EventBridgeClient(awsClientConfig()),
      ),
    eventBus: settings.eventBus,
    source: settings.source,
    logger,
  });
}

/**
 * Splits entries into PutEvents calls, as index lists: at most 10 entries and 256 KB each,
 * measured as EventBridge does (source, detail type, detail and bus name in UTF-8, plus 14
 * bytes for the time). An entry too large on its own still gets a call, which refuses it.
 */
export function chunkEntries(entries: readonly PutEventsRequestEntry[]): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  entries.forEach((entry, index) => {
    const size = entrySize(entry);
    if (
      current.length > 0 &&
      (current.length === PUT_EVENTS_MAX_ENTRIES || bytes + size > PUT_EVENTS_MAX_BYTES)
    ) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(index);
    bytes += size;
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function entrySize(entry: PutEventsRequestEntry): number {
  const text = [
    entry.Source,
    entry.DetailType,
    entry.Detail,
    entry.EventBusName,
    ...(entry.Resources ?? []),
  ];
  return 14 + text.reduce((sum, part) => sum + Buffer.byteLength(part ?? '', 'utf8'), 0);
}
