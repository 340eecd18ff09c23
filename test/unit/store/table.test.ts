/** The task table as DynamoDB knows it (src/store/table.ts). */
import { describe, expect, it } from 'vitest';
import { executorSettings } from '../../../src/settings/executor.js';
import { tableKeyDefinition } from '../../../src/store/table.js';

describe('tableKeyDefinition', () => {
  it('keys the table by pk and indexes statusShard/statusAt projecting type, orderingKey and updatedAt', () => {
    expect(tableKeyDefinition(executorSettings().table)).toEqual({
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'statusShard', AttributeType: 'S' },
        { AttributeName: 'statusAt', AttributeType: 'N' },
      ],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byStatus',
          KeySchema: [
            { AttributeName: 'statusShard', KeyType: 'HASH' },
            { AttributeName: 'statusAt', KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: ['type', 'orderingKey', 'updatedAt', 'lane'],
          },
        },
      ],
    });
  });
});
