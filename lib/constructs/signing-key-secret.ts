/**
 * The HMAC envelope signing-key secret `<project>/signing-key` (docs/architecture.md "HMAC envelope v1"):
 * `{"current":"…","previous":"…"}`, replicated to every deployment region so each region's proxies and
 * services read it locally, and rotated by lambda/signing-key-rotation (docs/edge-lambdas.md).
 */
import { Duration } from 'aws-cdk-lib';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PlatformFunction } from './platform-function.js';
import { replicatedSecret } from './replicated-secret.js';
import type { ReplicatedSecretProps } from './replicated-secret.js';

/** Days between rotations. Verifiers accept current and previous, so any interval over minutes is safe. */
const SIGNING_KEY_ROTATION_DAYS = 30;

/** Name, replica regions and project of the secret. */
export type SigningKeySecretProps = ReplicatedSecretProps;

export class SigningKeySecret extends Construct {
  readonly secret: Secret;
  readonly rotationFunction: PlatformFunction;

  constructor(scope: Construct, id: string, props: SigningKeySecretProps) {
    super(scope, id);
    // Nothing outlives the key: a new deployment simply signs with a new one.
    this.secret = replicatedSecret(
      this,
      props,
      `${props.projectName} HMAC envelope signing keys {"current","previous"}: proxies sign, services verify`,
      // The first value is {"current":"<random>"}; the first rotation adds "previous".
      {
        secretStringTemplate: '{}',
        generateStringKey: 'current',
        passwordLength: 48,
        excludePunctuation: true,
      },
    );
    this.rotationFunction = new PlatformFunction(this, 'Rotation', {
      entryName: 'signing-key-rotation',
      description: `${props.projectName}: rotates the envelope signing key`,
      timeout: Duration.seconds(30),
      invokedBy: 'secrets-manager-rotation',
      memorySize: 256,
    });
    // Grants the rotation steps' actions on this secret and lets Secrets Manager invoke the function.
    this.secret.addRotationSchedule('Rotation', {
      rotationLambda: this.rotationFunction,
      automaticallyAfter: Duration.days(SIGNING_KEY_ROTATION_DAYS),
    });
  }
}
