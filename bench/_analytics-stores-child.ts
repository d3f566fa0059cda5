/**
 * dynalite and kinesalite in their own process for bench/analytics-events.bench.ts, as DynamoDB and Kinesis
 * are in production: services whose work does not run on the Lambda's CPU. Creates the analytics tables
 * (project `BENCH_PROJECT`) and the 4-shard stream `BENCH_STREAM`, prints
 * `{"dynamodb":"http://…","kinesis":"http://…","region":"…"}` once both listen, and stops when its stdin
 * closes (the parent exited or closed it).
 */
import { ANALYTICS_TABLES } from '../contracts/analytics-resources.js';
import { startLocalDynamo } from '../local/dynamodb.js';
import { startLocalKinesis } from '../local/kinesis.js';

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const dynamo = await startLocalDynamo({
  project: required('BENCH_PROJECT'),
  tables: Object.values(ANALYTICS_TABLES),
});
const kinesis = await startLocalKinesis({ streams: [{ name: required('BENCH_STREAM'), shardCount: 4 }] });
process.stdout.write(
  `${JSON.stringify({ dynamodb: dynamo.endpoint, kinesis: kinesis.endpoint, region: kinesis.region })}\n`,
);
process.stdin.resume();
process.stdin.once('end', () => {
  void Promise.all([kinesis.close(), dynamo.close()]).finally(() => process.exit(0));
});
