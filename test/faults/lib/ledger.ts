/**
 * The effects ledger: a DynamoDB table, separate from the task table, where every handler
 * run records its side effect. It is the ground truth the classifier compares the task
 * records against: a record says SUCCEEDED once, the ledger says how often the work happened.
 *
 * Handler *calls* (a run started, whether or not it got as far as its effect) are counted
 * in memory instead, by the {@link CallLog}: they are not effects, and a DynamoDB write per
 * call would slow the emulator, which every scenario shares, by a seventh.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** One handler run: a call (in the {@link CallLog}) or an effect (in the ledger). */
export interface RunEntry {
  readonly taskId: string;
  readonly attempt: number;
  readonly workerId: string;
  readonly at: number;
}

/** The end of one handler run: when it returned (`ok`) or threw. */
export interface RunEnd extends RunEntry {
  readonly ok: boolean;
}

/** One ledger item: an effect that happened. */
export interface LedgerEntry extends RunEntry {
  readonly runId: string;
  /** What the effect saw, when its task says (mode `waits`: what its wait returned). */
  readonly detail?: string;
}

/**
 * Handler calls, in start order, and their ends. Worker child processes report theirs on
 * stdout (a line per call and per end; writes to a pipe are synchronous on Linux, so a
 * SIGKILL cannot lose a reported one). Times are the handler's own clock readings: every
 * process of the suite runs on this machine, so they compare across processes.
 */
export class CallLog {
  readonly entries: RunEntry[] = [];
  /** Ends of handler runs; a run killed with its process has none. */
  readonly ends: RunEnd[] = [];
  /** Audit events that worker child processes reported (`@@audit` lines). */
  readonly audits: Record<string, unknown>[] = [];

  /** Records a call; `at` is the handler's start time (now, when not given). */
  record(entry: Omit<RunEntry, 'at'> & { at?: number }): void {
    this.entries.push({ ...entry, at: entry.at ?? Date.now() });
  }

  recordEnd(entry: RunEnd): void {
    this.ends.push(entry);
  }

  /** The line a child process prints for a call. */
  static line(entry: RunEntry): string {
    return `@@call ${JSON.stringify(entry)}\n`;
  }

  /** The line a child process prints for the end of a call. */
  static endLine(entry: RunEnd): string {
    return `@@end ${JSON.stringify(entry)}\n`;
  }

  /** The line a child process prints for an audit event. */
  static auditLine(attributes: Record<string, unknown>): string {
    return `@@audit ${JSON.stringify(attributes)}\n`;
  }

  /** Records the calls and audit events in a chunk of a child's stdout. */
  ingest(text: string): void {
    for (const line of text.split('\n')) {
      if (line.startsWith('@@call ')) this.record(JSON.parse(line.slice(7)) as RunEntry);
      if (line.startsWith('@@end ')) this.recordEnd(JSON.parse(line.slice(6)) as RunEnd);
      if (line.startsWith('@@audit ')) this.audits.push(JSON.parse(line.slice(8)));
    }
  }
}

/** Writes and reads one ledger table. Its client is never fault-injected: it observes. */
export class EffectsLedger {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    readonly tableName: string,
    dynamodb: DynamoDBClient = new DynamoDBClient({ region: 'us-east-1' }),
  ) {
    this.doc = DynamoDBDocumentClient.from(dynamodb);
  }

  /** Creates the table (taskId hash key, runId range key) and waits until it exists. */
  static async create(tableName: string, dynamodb: DynamoDBClient): Promise<EffectsLedger> {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'taskId', AttributeType: 'S' },
          { AttributeName: 'runId', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'taskId', KeyType: 'HASH' },
          { AttributeName: 'runId', KeyType: 'RANGE' },
        ],
      }),
    );
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 30 }, { TableName: tableName });
    return new EffectsLedger(tableName, dynamodb);
  }

  /** Records one effect. Retries until written: the ledger must not lose entries. */
  async record(entry: Omit<RunEntry, 'at'> & { readonly detail?: string }): Promise<void> {
    const item: LedgerEntry = {
      ...entry,
      runId: `${entry.attempt}#${entry.workerId}#${randomUUID()}`,
      at: Date.now(),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.doc.send(new PutCommand({ TableName: this.tableName, Item: item }));
        return;
      } catch (err) {
        if (attempt >= 10) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  /** Every entry (a Scan: this is test tooling, not the product). */
  async readAll(): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      for (const item of page.Items ?? []) out.push(item as LedgerEntry);
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return out;
  }
}
