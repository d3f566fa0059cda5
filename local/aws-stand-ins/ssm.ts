/**
 * SSM Parameter Store stand-in (JSON 1.1): GetParameter, PutParameter and GetParametersByPath — the
 * regional proxies read the ALB host, the aggregator discovers the regional APIs by path. Parameters are
 * per region; only String / StringList types (nothing here is a SecureString).
 */
import { partitionOf } from '../../contracts/partition.js';
import type { CredentialStore } from '../sigv4-verifier.js';
import { AwsServiceError, startStandInServer, type StandInServer } from './protocol.js';

interface StoredParameter {
  Name: string;
  Type: 'String' | 'StringList';
  Value: string;
  Version: number;
  LastModifiedDate: number;
  ARN: string;
  DataType: 'text';
}

export interface SsmStandIn extends StandInServer {
  putParameter(region: string, name: string, value: string): void;
}

const MAX_RESULTS = 10;

function requireName(value: unknown): string {
  if (typeof value !== 'string' || !/^\/?[A-Za-z0-9_.\-/]{1,2048}$/.test(value)) {
    throw new AwsServiceError('ValidationException', 'Parameter name is invalid');
  }
  return value;
}

export async function startSsmStandIn(opts: {
  accountId: string;
  credentials: CredentialStore;
}): Promise<SsmStandIn> {
  const parameters = new Map<string, Map<string, StoredParameter>>();
  const regionParameters = (region: string) => {
    let m = parameters.get(region);
    if (m === undefined) parameters.set(region, (m = new Map<string, StoredParameter>()));
    return m;
  };
  const put = (
    region: string,
    name: string,
    value: string,
    type: 'String' | 'StringList',
    overwrite: boolean,
  ) => {
    const m = regionParameters(region);
    const existing = m.get(name);
    if (existing !== undefined && !overwrite) {
      throw new AwsServiceError(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
      );
    }
    const version = (existing?.Version ?? 0) + 1;
    m.set(name, {
      Name: name,
      Type: type,
      Value: value,
      Version: version,
      LastModifiedDate: Date.now() / 1000,
      ARN: `arn:${partitionOf(region).partition}:ssm:${region}:${opts.accountId}:parameter/${name.replace(/^\//, '')}`,
      DataType: 'text',
    });
    return version;
  };

  const server = await startStandInServer({
    service: 'ssm',
    credentials: opts.credentials,
    protocol: {
      kind: 'json',
      targetPrefix: 'AmazonSSM',
      operations: {
        GetParameter: (input, ctx) => {
          const parameter = regionParameters(ctx.region).get(requireName(input.Name));
          if (parameter === undefined) throw new AwsServiceError('ParameterNotFound', '');
          return { Parameter: parameter };
        },
        PutParameter: (input, ctx) => {
          const type = input.Type ?? 'String';
          if (type !== 'String' && type !== 'StringList') {
            throw new AwsServiceError(
              'UnsupportedParameterType',
              `${JSON.stringify(type)} is not supported locally`,
            );
          }
          if (typeof input.Value !== 'string')
            throw new AwsServiceError('ValidationException', 'Value is required');
          const version = put(
            ctx.region,
            requireName(input.Name),
            input.Value,
            type,
            input.Overwrite === true,
          );
          return { Version: version, Tier: 'Standard' };
        },
        GetParametersByPath: (input, ctx) => {
          const path = requireName(input.Path).replace(/\/*$/, '/');
          const recursive = input.Recursive === true;
          const max =
            typeof input.MaxResults === 'number'
              ? Math.min(Math.max(1, input.MaxResults), MAX_RESULTS)
              : MAX_RESULTS;
          const start = typeof input.NextToken === 'string' ? Number(input.NextToken) : 0;
          if (!Number.isInteger(start) || start < 0)
            throw new AwsServiceError('InvalidNextToken', 'The specified token is not valid.');
          const matches = [...regionParameters(ctx.region).values()]
            .filter((p) => p.Name.startsWith(path) && (recursive || !p.Name.slice(path.length).includes('/')))
            .sort((a, b) => a.Name.localeCompare(b.Name));
          const page = matches.slice(start, start + max);
          return {
            Parameters: page,
            ...(start + max < matches.length ? { NextToken: String(start + max) } : {}),
          };
        },
      },
    },
  });

  return {
    ...server,
    putParameter: (region, name, value) => void put(region, name, value, 'String', true),
  };
}
