/**
 * The WAF web ACL in front of the global API (docs/global-stack.md), in this priority order:
 *
 * | priority | rule                                  | action                    |
 * | -------- | ------------------------------------- | ------------------------- |
 * | 0        | per-IP rate limit (5-minute window)   | block                     |
 * | 1        | body size limit, non-inference routes | block                     |
 * | 2        | AWSManagedRulesCommonRuleSet          | group default (see below) |
 * | 3        | AWSManagedRulesKnownBadInputsRuleSet  | group default             |
 * | 4        | AWSManagedRulesSQLiRuleSet            | group default             |
 * | 5        | AWSManagedRulesLinuxRuleSet           | group default             |
 * | 6        | AWSManagedRulesAmazonIpReputationList | group default             |
 * | 7        | AWSManagedRulesAnonymousIpList        | group default             |
 *
 * Limits come from config (`waf.rate_limit_per_ip`, `waf.max_body_size_bytes`). REGIONAL scope: API
 * Gateway stages — edge-optimized ones included — take a regional web ACL of the API's region.
 *
 * Body sizes: API Gateway forwards at most the association's inspection limit of a body to WAF, so the
 * limit is the smallest of 16/32/48/64 KiB that covers the configured cap, and an oversize body counts as
 * a match (blocked). Inference bodies (up to 1 MiB) are capped by the inference proxy instead, which is
 * why the common rule set's own 8 KiB `SizeRestrictions_BODY` is set to count: it would otherwise block
 * every inference request over 8 KiB and make the configured cap meaningless. Every other rule of every
 * managed group keeps its default action.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';

/** Managed rule groups of priorities 2–7, in order. */
const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesSQLiRuleSet',
  'AWSManagedRulesLinuxRuleSet',
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesAnonymousIpList',
] as const;

const RATE_LIMIT_RULE = 'RateLimitPerIp';
const BODY_SIZE_RULE = 'BodySizeLimitNonInference';

/** Body inspection limits API Gateway offers (AssociationConfig), bytes → setting. */
const INSPECTION_LIMITS: readonly [number, string][] = [
  [16 * 1024, 'KB_16'],
  [32 * 1024, 'KB_32'],
  [48 * 1024, 'KB_48'],
  [64 * 1024, 'KB_64'],
];

/** Smallest inspection limit that covers `bytes` (config validation caps it at 64 KiB). */
function inspectionLimitFor(bytes: number): string {
  const found = INSPECTION_LIMITS.find(([limit]) => bytes <= limit);
  if (!found) throw new Error(`WAF cannot inspect ${bytes} bytes of an API Gateway body (64 KiB at most)`);
  return found[1];
}

export interface GlobalApiWafProps {
  /** `<project>-global-api`: the web ACL's name and metric prefix. */
  readonly name: string;
  /** `aws-waf-logs-<project>-global-api[-g<N>]` (lib/names.ts wafLogGroupName): a fixed, retainable name. */
  readonly logGroupName: string;
  /** What `cdk destroy` does with the log group (`removal_policy`, lib/retention.ts). */
  readonly logsRemovalPolicy: RemovalPolicy;
  /** Requests per client IP per 5-minute window before rule 0 blocks (`waf.rate_limit_per_ip`). */
  readonly rateLimitPerIp: number;
  /** Body size cap of rule 1 on non-inference routes, bytes (`waf.max_body_size_bytes`, 64 KiB at most). */
  readonly maxBodySizeBytes: number;
  /** Stage name: the path WAF sees on an execute-api URL starts with it (`/<stage>/inference/…`). */
  readonly stageName: string;
}

/** CloudWatch metrics and sampled requests under `metricName`. */
function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true };
}

/** Rule 0 the per-IP rate limit, rule 1 the body cap off the inference routes, then the managed groups. */
function webAclRules(props: GlobalApiWafProps): CfnWebACL.RuleProperty[] {
  const { rateLimitPerIp, maxBodySizeBytes } = props;
  const inferencePath: CfnWebACL.StatementProperty = {
    byteMatchStatement: {
      fieldToMatch: { uriPath: {} },
      positionalConstraint: 'STARTS_WITH',
      searchString: `/${props.stageName}/inference/`,
      // Decoded and normalized first, so `//`, `./`, `../` or %-escapes cannot dodge the exemption.
      textTransformations: [
        { priority: 0, type: 'URL_DECODE' },
        { priority: 1, type: 'NORMALIZE_PATH' },
      ],
    },
  };

  return [
    {
      name: RATE_LIMIT_RULE,
      priority: 0,
      action: { block: {} },
      statement: {
        rateBasedStatement: { limit: rateLimitPerIp, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
      },
      visibilityConfig: visibility(RATE_LIMIT_RULE),
    },
    {
      name: BODY_SIZE_RULE,
      priority: 1,
      action: { block: {} },
      statement: {
        andStatement: {
          statements: [
            { notStatement: { statement: inferencePath } },
            {
              sizeConstraintStatement: {
                fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
                comparisonOperator: 'GT',
                size: maxBodySizeBytes,
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          ],
        },
      },
      visibilityConfig: visibility(BODY_SIZE_RULE),
    },
    ...MANAGED_RULE_GROUPS.map((group, i): CfnWebACL.RuleProperty => ({
      name: group,
      priority: i + 2,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name: group,
          ...(group === 'AWSManagedRulesCommonRuleSet'
            ? { ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }] }
            : {}),
        },
      },
      visibilityConfig: visibility(group),
    })),
  ];
}

export class GlobalApiWaf extends Construct {
  /** The web ACL. */
  readonly webAcl: CfnWebACL;
  /** `aws-waf-logs-…`: every request WAF evaluated, the authorization header redacted. */
  readonly logs: LogGroup;

  constructor(scope: Construct, id: string, props: GlobalApiWafProps) {
    super(scope, id);
    const { name, maxBodySizeBytes } = props;
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name,
      description: `${name}: rate limit, body size limit, AWS managed rule groups`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      associationConfig: {
        requestBody: {
          API_GATEWAY: { defaultSizeInspectionLimit: inspectionLimitFor(maxBodySizeBytes) },
        },
      },
      visibilityConfig: visibility(name),
      rules: webAclRules(props),
    });

    this.logs = this.addLogging(props);
  }

  /** Every request WAF evaluated goes to the log group (`logs`), the authorization header redacted. */
  private addLogging(props: GlobalApiWafProps): LogGroup {
    // WAF requires the `aws-waf-logs-` prefix and a log group ARN without the trailing `:*`.
    const { logGroupName } = props;
    if (!logGroupName.startsWith('aws-waf-logs-')) {
      throw new Error(`WAF log group names start with "aws-waf-logs-": ${logGroupName}`);
    }
    const logs = new LogGroup(this, 'Logs', {
      logGroupName,
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: props.logsRemovalPolicy,
    });
    const logging = new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // SigV4 signatures and Cognito tokens never reach the logs.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
    logging.node.addDependency(logs);
    return logs;
  }

  /** Associates the web ACL with an API Gateway stage. */
  associate(id: string, stage: Stage): CfnWebACLAssociation {
    return new CfnWebACLAssociation(this, id, {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
