// Well-known Job labels and generated-name suffixes, shared by defaulting, validation, the REST
// create path and the job controller.

import { randomInt } from 'node:crypto';

export const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME = 'batch.kubernetes.io/job-name';

/** The alphabet apimachinery uses for generateName suffixes (no vowels, no look-alikes). */
const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** Longest generateName prefix kept, so that prefix + suffix fits a 63-character name. */
export const MAX_GENERATE_NAME_PREFIX = 58;

export function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += SUFFIX_CHARS.charAt(randomInt(SUFFIX_CHARS.length));
  return s;
}
