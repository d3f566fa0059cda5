/**
 * The environment contract of the handlers whose only setting is their region (signing-key rotation,
 * internal CA): AWS_REGION, which Lambda sets itself (a stack may not), for their AWS clients. It is
 * read on the first invocation like every other contract, so a function without it fails with a logged
 * configuration error instead of an SDK error halfway through a step.
 */
import { EnvReader, envVariables } from '../../contracts/env/reader.js';

export interface FunctionRegionConfig {
  readonly region: string;
}

/** For the local platform and tests: in Lambda the runtime sets it. */
export function functionRegionEnvironment(config: FunctionRegionConfig): Record<string, string> {
  return envVariables({ AWS_REGION: config.region });
}

/** Reads and validates the environment; throws an EnvironmentError naming the problem. */
export function readFunctionRegionConfig(env: NodeJS.ProcessEnv): FunctionRegionConfig {
  const r = new EnvReader(env);
  const region = r.required('AWS_REGION', 'region of the AWS clients, set by Lambda');
  r.finish();
  return Object.freeze({ region: region ?? '' });
}
