/**
 * dynalite in its own process for bench/queue-drain.ts, as DynamoDB is in production: a remote service
 * whose work does not run on manifest-processor's CPU. Creates the job-queue table (contracts/tables.ts),
 * prints `{"endpoint":"http://…","region":"…","env":{…}}` once it listens, and stops when its stdin closes
 * (the parent exited or closed it).
 */
import { TABLES } from '../contracts/tables.js';
import { startLocalDynamo } from '../local/dynamodb.js';

const dynamo = await startLocalDynamo({ tables: [TABLES.jobQueue] });
process.stdout.write(
  `${JSON.stringify({ endpoint: dynamo.endpoint, region: dynamo.region, env: dynamo.env })}\n`,
);
process.stdin.resume();
process.stdin.once('end', () => {
  void dynamo.close().finally(() => process.exit(0));
});
