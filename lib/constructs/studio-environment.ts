/**
 * The analytics environment behind `/studio/*` of the global API (docs/global-stack.md; only when
 * `analytics_environment.enabled`): a Cognito user pool whose ID tokens the `/studio/login` authorizer
 * validates, its hosted sign-in page redirecting to `/studio/callback`, and a SageMaker Studio domain
 * whose user profiles `/studio/login` opens with a presigned URL.
 *
 * User profiles are created by an administrator, named exactly as the user's `cognito:username` (the
 * studio-login function's `STUDIO_PROFILE_CLAIM`; docs/aggregator.md "Studio login"). The domain runs in
 * its own small VPC (isolated subnets, no NAT: Studio's apps reach the internet through SageMaker's
 * `PublicInternetOnly` network, the VPC only holds the domain's file system).
 */
import { Aws, RemovalPolicy } from 'aws-cdk-lib';
import { CognitoUserPoolsAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  StandardThreatProtectionMode,
  UserPool,
} from 'aws-cdk-lib/aws-cognito';
import type { UserPoolDomain, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { FlowLogDestination, FlowLogTrafficType, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnDomain } from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';

export interface StudioEnvironmentProps {
  /** Project name: prefix of the user pool, hosted sign-in domain and Studio domain names. */
  readonly projectName: string;
}

export class StudioEnvironment extends Construct {
  /** The invited users of the studio. */
  readonly userPool: UserPool;
  /** The user pool's hosted sign-in page. */
  readonly hostedDomain: UserPoolDomain;
  /** Validates the user pool's ID token in `Authorization` (`GET /studio/login`). */
  readonly authorizer: CognitoUserPoolsAuthorizer;
  /** The SageMaker Studio domain whose user profiles `/studio/login` opens. */
  readonly domain: CfnDomain;
  /** The domain's own VPC (isolated subnets: it holds only the domain's file system). */
  readonly vpc: Vpc;
  /** Role the Studio apps of every user profile run as: no permissions until an administrator grants them. */
  readonly executionRole: Role;

  constructor(scope: Construct, id: string, props: StudioEnvironmentProps) {
    super(scope, id);
    const { projectName } = props;

    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `${projectName}-studio`,
      // Users are invited by an administrator; nobody signs up on their own.
      selfSignUpEnabled: false,
      signInAliases: { username: true, email: true },
      autoVerify: { email: true },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.hostedDomain = this.userPool.addDomain('HostedDomain', {
      // Unique per account and region; Cognito prefixes may not contain "aws", "amazon" or "cognito".
      cognitoDomain: { domainPrefix: `${projectName}-studio-${Aws.ACCOUNT_ID}` },
    });
    this.authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      authorizerName: `${projectName}-studio`,
      cognitoUserPools: [this.userPool],
      identitySource: 'method.request.header.Authorization',
    });

    const flowLogs = new LogGroup(this, 'VpcFlowLogs', {
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'studio', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      flowLogs: {
        all: {
          destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
          trafficType: FlowLogTrafficType.ALL,
        },
      },
    });

    this.executionRole = new Role(this, 'ExecutionRole', {
      assumedBy: new ServicePrincipal('sagemaker.amazonaws.com'),
      description: `${projectName} analytics studio: default execution role of user profiles`,
    });
    this.domain = new CfnDomain(this, 'Domain', {
      domainName: `${projectName}-studio`,
      authMode: 'IAM',
      appNetworkAccessType: 'PublicInternetOnly',
      vpcId: this.vpc.vpcId,
      subnetIds: this.vpc.isolatedSubnets.map((s) => s.subnetId),
      defaultUserSettings: { executionRole: this.executionRole.roleArn },
    });
  }

  /**
   * The app client of the hosted sign-in page: authorization-code flow redirecting to `callbackUrl`
   * (the global API's `/studio/callback`). Created once the API (and so its URL) exists.
   */
  addLoginClient(callbackUrl: string): UserPoolClient {
    return this.userPool.addClient('LoginClient', {
      userPoolClientName: 'studio-login',
      generateSecret: false,
      preventUserExistenceErrors: true,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [callbackUrl],
      },
    });
  }
}
