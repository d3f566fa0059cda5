/**
 * The Lambda context an in-process invocation gets: a fresh request id, the function's ARN in the local
 * account (handlers derive their account from it), and a clock that runs out at the function timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { partitionOf } from '../../contracts/partition.js';

export interface FunctionInfo {
  /** Physical function name, e.g. `gco-us-east-1-control-plane-proxy`. */
  name: string;
  region: string;
  accountId: string;
  /** Function timeout: getRemainingTimeInMillis counts down from it. */
  timeoutMs: number;
  memoryMb?: number;
}

function functionArn(fn: Pick<FunctionInfo, 'name' | 'region' | 'accountId'>): string {
  return `arn:${partitionOf(fn.region).partition}:lambda:${fn.region}:${fn.accountId}:function:${fn.name}`;
}

export function lambdaContext(fn: FunctionInfo, now: () => number = Date.now): Context {
  const deadline = now() + fn.timeoutMs;
  const unsupported = (what: string) => () => {
    throw new Error(`context.${what}() is the deprecated callback API; return a promise instead`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArn(fn),
    memoryLimitInMB: String(fn.memoryMb ?? 512),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: `${new Date(now()).toISOString().slice(0, 10).replace(/-/g, '/')}/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}
