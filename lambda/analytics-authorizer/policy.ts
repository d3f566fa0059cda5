/**
 * The IAM policy the authorizer returns. API Gateway caches it under the Authorization header alone, so
 * it must hold for every request carrying that key: it allows `POST` on the key's own application's
 * events resource only, built from the incoming methodArn's API id and stage. A request for another
 * application with this key then fails API Gateway's policy check (403).
 *
 * Application ids are UUIDs of any letter case (docs/analytics-api.md), but the method ARN carries the
 * path as the client sent it and IAM compares resources case-sensitively, so an Allow naming the stored
 * lower-case id refused `…/applications/<UPPER-CASE ID>/events` (issue 25). IAM has no case-insensitive
 * match; its `?` wildcard stands for exactly one character ("IAM JSON policy elements: Resource",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html). So each
 * letter of the id becomes `?`, while its digits and hyphens stay fixed: the resource matches the id in
 * every letter case (and, as a pattern, only ids with the same digits in the same places). The events
 * handler then compares the canonical (lower-case) path id with the key's application exactly, so the
 * gateway pattern is never the only check.
 *
 * A known key that may not send (disabled, or its application deleted) gets an explicit Deny of the stage
 * instead: the caller is identified but refused, which is 403, not 401.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';

export interface KeyIdentity {
  readonly applicationId: string;
  readonly apiKeyId: string;
}

// arn:<partition>:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<resource path…>
const METHOD_ARN_RE =
  /^(arn:[a-z-]+:execute-api:[a-z0-9-]+:\d{12}:[A-Za-z0-9]+)\/([A-Za-z0-9_-]+)\/[A-Z*]+\//;

/** The id as an IAM resource pattern matching it in any letter case: each letter becomes `?`. */
function anyCasePattern(applicationId: string): string {
  return applicationId.replace(/[a-z]/gi, '?');
}

/** The events ARN pattern of an application (any letter case), under the API and stage of `methodArn`. */
export function eventsResourceArn(methodArn: string, applicationId: string): string {
  const match = METHOD_ARN_RE.exec(methodArn);
  if (match === null) throw new Error('methodArn is not an execute-api method ARN');
  return `${match[1]}/${match[2]}/POST/applications/${anyCasePattern(applicationId)}/events`;
}

export function allowPolicy(methodArn: string, identity: KeyIdentity): APIGatewayAuthorizerResult {
  return {
    principalId: identity.apiKeyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'execute-api:Invoke',
          Effect: 'Allow',
          Resource: eventsResourceArn(methodArn, identity.applicationId),
        },
      ],
    },
    context: { applicationId: identity.applicationId, apiKeyId: identity.apiKeyId },
  };
}

/** The stage's ARN of `methodArn`: `<arn>:<api-id>/<stage>/*`. */
function stageResourceArn(methodArn: string): string {
  const match = METHOD_ARN_RE.exec(methodArn);
  if (match === null) throw new Error('methodArn is not an execute-api method ARN');
  return `${match[1]}/${match[2]}/*`;
}

export function denyPolicy(methodArn: string, identity: KeyIdentity): APIGatewayAuthorizerResult {
  return {
    principalId: identity.apiKeyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageResourceArn(methodArn) }],
    },
  };
}
