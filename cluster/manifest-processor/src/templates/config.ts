/** Job templates configuration: the table's name (written by contracts/tables.ts tableEnvironment()). */
import { TABLES } from '../../../../contracts/tables.js';
import { readContract, type EnvSource } from '../../../shared/env-source.js';

export interface TemplateConfig {
  /** JOB_TEMPLATES_TABLE: the central job-templates table. */
  tableName: string;
}

export function loadTemplateConfig(env: EnvSource = process.env): TemplateConfig {
  return readContract(env, (read) => ({
    tableName: read.required(TABLES.jobTemplates.envVar, `name of the ${TABLES.jobTemplates.id} table`) ?? '',
  }));
}
