/**
 * Where each optional feature's AWS resources do not exist: lib/config.ts refuses a configuration that
 * puts a feature there, naming the region and the missing service, instead of letting `cdk deploy` fail.
 * One row per (feature, service), each with its source. CDK's own template validator (rule F3006, "Resource
 * type … does not exist in <region>") knows part of this from CloudFormation's per-region registry, and
 * test/unit/feature-regions.test.ts checks that every gap it reports is listed here; the AWS documentation
 * lists gaps the registry does not show (a resource type can exist where the service refuses it).
 *
 * Global Accelerator is not refused: a region without it gets no endpoint group (lib/accelerator-regions.ts).
 */
import { AWS_REGIONS } from '../contracts/partition.js';

/** Features that need a service a region may lack. */
export type RegionalFeature = 'studio' | 'warehouse';

export interface FeatureGap {
  readonly feature: RegionalFeature;
  /** The AWS service (and resource) that is missing, as the refusal names it. */
  readonly service: string;
  /** CloudFormation resource type the feature creates for that service. */
  readonly resourceType: string;
  /** Regions where it does not exist. */
  readonly regions: readonly string[];
  /** Where that comes from. */
  readonly source: string;
}

export const FEATURE_GAPS: readonly FeatureGap[] = Object.freeze([
  {
    feature: 'studio',
    service: 'Amazon SageMaker AI domains (AWS::SageMaker::Domain)',
    resourceType: 'AWS::SageMaker::Domain',
    // ca-west-1 and mx-central-1: CloudFormation's registry (CDK validator F3006); ap-south-2 and
    // ap-southeast-4: SageMaker AI Studio's region list.
    regions: ['ap-south-2', 'ap-southeast-4', 'ca-west-1', 'mx-central-1'],
    source: 'https://docs.aws.amazon.com/sagemaker/latest/dg/regions-quotas.html',
  },
  {
    feature: 'studio',
    service: 'Amazon Cognito user pools (AWS::Cognito::UserPool)',
    resourceType: 'AWS::Cognito::UserPool',
    // The China regions offer Cognito identity pools only.
    regions: [...AWS_REGIONS['aws-cn']],
    source: 'https://docs.amazonaws.cn/en_us/aws/latest/userguide/cognito.html',
  },
  {
    feature: 'warehouse',
    service: 'Amazon Redshift Serverless (AWS::RedshiftServerless::Workgroup)',
    resourceType: 'AWS::RedshiftServerless::Workgroup',
    // Every region the platform knows has a Redshift Serverless endpoint as of 2026-11.
    regions: [],
    source: 'https://docs.aws.amazon.com/general/latest/gr/redshift-service.html#redshift-serverless',
  },
]);

/** The gaps of `feature` in `region`: empty when everything it needs exists there. */
export function missingServices(feature: RegionalFeature, region: string): readonly FeatureGap[] {
  return FEATURE_GAPS.filter((gap) => gap.feature === feature && gap.regions.includes(region));
}
