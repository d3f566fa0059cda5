/** Test helper: a whole Lambda context, as the runtime passes it to a handler's entry point. */
import type { Context } from 'aws-lambda';

export const ACCOUNT = '111122223333';

export function lambdaContext(overrides: Partial<Context> = {}): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'gco-test-function',
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:gco-test-function`,
    memoryLimitInMB: '512',
    awsRequestId: 'lambda-req-1',
    logGroupName: '/aws/lambda/gco-test-function',
    logStreamName: '2025/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}
