/** DynamoDB errors the analytics stores turn into answers. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A write whose condition did not hold (the item was or was not there). */
export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}
