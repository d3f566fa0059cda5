// CDK entry point (cdk.json "app"). A config mistake is the user's to fix: print the message, not a trace.
import { buildApp } from '../lib/app-builder.js';
import { ConfigError } from '../lib/config.js';

try {
  buildApp().app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
