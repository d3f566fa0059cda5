/**
 * The e2e suites' platform: started in-process (local/platform.ts, as the other e2e tests do) with its
 * endpoints file written where `npm start` writes it for users, so `gco --local` finds it the same way.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalPlatform } from '../../../../local/platform.js';
import { suiteTempDir } from '../../../support/suite-temp-dir.js';

/** Writes `<dir>/.local/endpoints.json` (mode 600) for the platform; returns the env that points gco at it. */
export function localEnv(platform: LocalPlatform): Record<string, string> {
  const dir = suiteTempDir('gco-e2e-');
  const file = join(dir, 'endpoints.json');
  writeFileSync(file, JSON.stringify(platform.endpoints), { mode: 0o600 });
  return { GCO_LOCAL: '1', GCO_LOCAL_DIR: dir };
}

export const JOB_YAML = (name: string, message: string) => `# a Job as users write it
apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  labels:
    app: gco-e2e
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: public.ecr.aws/docker/library/busybox:1.36
          command: ["echo", "${message}"]
`;
