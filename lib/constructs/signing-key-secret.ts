/**
 * The HMAC envelope signing-key secret `<project>/signing-key` (ARCHITECTURE.md "HMAC envelope v1"):
 * `{"current":"…","previous":"…"}`, replicated to every deployment region so each region's proxies and
 * services read it locally, and rotated by lambda/signing-key-rotation (docs/edge-lambdas.md).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../config.js';
import { signingKeySecretName } from '../names.js';
import { PlatformFunction } from './platform-function.js';

/** Days between rotations. Verifiers accept current and previous, so any interval over minutes is safe. */
export const SIGNING_KEY_ROTATION_DAYS = 30;

export interface SigningKeySecretProps {
  readonly config: PlatformConfig;
  /** Regions the secret is replicated to (every deployment region other than the stack's). */
  readonly replicaRegions: readonly string[];
}

export class SigningKeySecret extends Construct {
  readonly secret: Secret;
  readonly rotationFunction: PlatformFunction;

  constructor(scope: Construct, id: string, props: SigningKeySecretProps) {
    super(scope, id);
    const { config } = props;
    this.secret = new Secret(this, 'Secret', {
      secretName: signingKeySecretName(config),
      description: `${config.projectName} HMAC envelope signing keys {"current","previous"}: proxies sign, services verify`,
      // The first value is {"current":"<random>"}; the first rotation adds "previous".
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'current',
        passwordLength: 48,
        excludePunctuation: true,
      },
      replicaRegions: props.replicaRegions.map((region) => ({ region })),
      // Nothing outlives the key: a new deployment simply signs with a new one.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.rotationFunction = new PlatformFunction(this, 'Rotation', {
      entryName: 'signing-key-rotation',
      description: `${config.projectName}: rotates the envelope signing key`,
      timeout: Duration.seconds(30),
      memorySize: 256,
    });
    // Grants the rotation steps' actions on this secret and lets Secrets Manager invoke the function.
    this.secret.addRotationSchedule('Rotation', {
      rotationLambda: this.rotationFunction,
      automaticallyAfter: Duration.days(SIGNING_KEY_ROTATION_DAYS),
    });
    NagSuppressions.addResourceSuppressions(this.rotationFunction, [
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by Secrets Manager, which retries each rotation step and records failures',
      },
    ]);
  }
}
