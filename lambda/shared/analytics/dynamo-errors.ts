/** DynamoDB error checks by name: SDK copies nested under different packages break `instanceof`. */
export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
