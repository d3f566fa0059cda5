// CDK entry point (cdk.json "app"). A config mistake is the user's to fix: print the message, not a trace.
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import { buildApp } from '../lib/app-builder.js';
import { ConfigError } from '../lib/config.js';

try {
  // CDK's template validator (CloudFormation Validate: resource types missing in a region, schema errors)
  // only warns unless this feature flag is on; on, `cdk synth` fails on any unacknowledged finding.
  buildApp({ [VALIDATE_AGAINST_DEFAULT_RULES]: true }).app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
