/**
 * CloudFormation stand-in (query protocol, XML): DescribeStacks — what `gco` calls to discover the
 * platform's API URLs from the stacks' outputs (cli/discovery.ts). Stacks are per region, as separate
 * regional endpoints would hold them; an unknown stack is CloudFormation's `ValidationError`.
 */
import { randomUUID } from 'node:crypto';
import { partitionOf } from '../../contracts/partition.js';
import type { CredentialStore } from '../sigv4-verifier.js';
import { AwsServiceError, startStandInServer, xmlEscape, type StandInServer } from './protocol.js';

interface StackRecord {
  name: string;
  /** Output key → value (OutputValue), as the template's `Outputs` section resolves at deploy time. */
  outputs: Readonly<Record<string, string>>;
  status?: string;
}

interface StoredStack {
  id: string;
  name: string;
  outputs: Readonly<Record<string, string>>;
  status: string;
  createdTime: string;
}

export interface CloudFormationStandIn extends StandInServer {
  /** Creates or replaces a stack in a region; returns its stack id (ARN). */
  putStack(region: string, stack: StackRecord): string;
}

const XMLNS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

function memberXml(stack: StoredStack): string {
  const outputs = Object.entries(stack.outputs)
    .map(
      ([key, value]) =>
        `<member><OutputKey>${xmlEscape(key)}</OutputKey><OutputValue>${xmlEscape(value)}</OutputValue></member>`,
    )
    .join('');
  return (
    '<member>' +
    `<StackId>${xmlEscape(stack.id)}</StackId>` +
    `<StackName>${xmlEscape(stack.name)}</StackName>` +
    `<CreationTime>${stack.createdTime}</CreationTime>` +
    `<StackStatus>${xmlEscape(stack.status)}</StackStatus>` +
    '<DisableRollback>false</DisableRollback>' +
    `<Outputs>${outputs}</Outputs>` +
    '</member>'
  );
}

export async function startCloudFormationStandIn(opts: {
  accountId: string;
  credentials: CredentialStore;
}): Promise<CloudFormationStandIn> {
  const stacks = new Map<string, Map<string, StoredStack>>();
  const regionStacks = (region: string) => {
    let m = stacks.get(region);
    if (m === undefined) stacks.set(region, (m = new Map<string, StoredStack>()));
    return m;
  };

  const server = await startStandInServer({
    service: 'cloudformation',
    credentials: opts.credentials,
    protocol: {
      kind: 'query',
      xmlns: XMLNS,
      operations: {
        DescribeStacks: (params, ctx) => {
          const wanted = params.get('StackName');
          const inRegion = [...regionStacks(ctx.region).values()];
          const found =
            wanted === null ? inRegion : inRegion.filter((s) => s.name === wanted || s.id === wanted);
          if (wanted !== null && found.length === 0) {
            throw new AwsServiceError('ValidationError', `Stack with id ${wanted} does not exist`);
          }
          return `<Stacks>${found.map(memberXml).join('')}</Stacks>`;
        },
      },
    },
  });

  return {
    ...server,
    putStack(region, stack) {
      const id = `arn:${partitionOf(region).partition}:cloudformation:${region}:${opts.accountId}:stack/${stack.name}/${randomUUID()}`;
      regionStacks(region).set(stack.name, {
        id,
        name: stack.name,
        outputs: stack.outputs,
        status: stack.status ?? 'CREATE_COMPLETE',
        createdTime: new Date().toISOString(),
      });
      return id;
    },
  };
}
