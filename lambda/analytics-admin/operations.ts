/**
 * The administrative operations over the two stores, answering the API's shapes exactly
 * (docs/analytics-api.md): Application, {Applications, Count}, Authorization, {Authorizations, Count},
 * {Enabled}, and a plain JSON string for deletions. Failures are ApiErrors (400/404) the handler turns into `{"message"}`.
 */
import { randomUUID } from 'node:crypto';
import { EdgeHttpError } from '../shared/errors.js';
import type { EdgeLogger } from '../shared/logger.js';
import type { NamedInput } from '../shared/analytics/admin-input.js';
import { generateApiKey, hashApiKey, maskApiKey } from '../shared/analytics/api-keys.js';
import type { ApiKeyItem, ApiKeyStore } from '../shared/analytics/api-key-store.js';
import type { ApplicationItem, ApplicationStore } from '../shared/analytics/applications-store.js';

export interface Authorization {
  ApiKeyId: string;
  ApiKeyValue: string;
  ApiKeyName: string;
  ApplicationId: string;
  ApiKeyDescription: string;
  CreatedAt: string;
  UpdatedAt: string;
  Enabled: boolean;
}

export interface AdminOperationsDeps {
  applications: ApplicationStore;
  apiKeys: ApiKeyStore;
  logger: EdgeLogger;
  now: () => Date;
  /** Key generator (tests may pin it; production uses the CSPRNG). */
  generateKey?: () => string;
  newId?: () => string;
  /** How long a key creation waits for the key-hash index to show the new key (default 5 s). */
  keyIndexWaitMs?: number;
}

const DEFAULT_KEY_INDEX_WAIT_MS = 5_000;

const applicationNotFound = (id: string) =>
  new EdgeHttpError(404, `Application ${id} not found`, 'application_not_found');
const keyNotFound = (applicationId: string, apiKeyId: string) =>
  new EdgeHttpError(
    404,
    `Authorization ${apiKeyId} not found in application ${applicationId}`,
    'key_not_found',
  );

/** The API's Authorization: the masked value unless the full one is given (creation only). */
function authorization(item: ApiKeyItem, fullValue?: string): Authorization {
  return {
    ApiKeyId: item.ApiKeyId,
    ApiKeyValue: fullValue ?? item.ApiKeyMasked,
    ApiKeyName: item.ApiKeyName,
    ApplicationId: item.ApplicationId,
    ApiKeyDescription: item.ApiKeyDescription,
    CreatedAt: item.CreatedAt,
    UpdatedAt: item.UpdatedAt,
    Enabled: item.Enabled,
  };
}

function application(item: ApplicationItem): ApplicationItem {
  return {
    ApplicationId: item.ApplicationId,
    ApplicationName: item.ApplicationName,
    Description: item.Description,
    CreatedAt: item.CreatedAt,
    UpdatedAt: item.UpdatedAt,
  };
}

export class AdminOperations {
  private readonly generateKey: () => string;
  private readonly newId: () => string;

  constructor(private readonly deps: AdminOperationsDeps) {
    this.generateKey = deps.generateKey ?? generateApiKey;
    this.newId = deps.newId ?? randomUUID;
  }

  private timestamp(): string {
    return this.deps.now().toISOString();
  }

  async createApplication(input: NamedInput): Promise<ApplicationItem> {
    const at = this.timestamp();
    const item: ApplicationItem = {
      ApplicationId: this.newId(),
      ApplicationName: input.name,
      Description: input.description,
      CreatedAt: at,
      UpdatedAt: at,
    };
    await this.deps.applications.create(item);
    return item;
  }

  async listApplications(): Promise<{ Applications: ApplicationItem[]; Count: number }> {
    const items = (await this.deps.applications.list()).map(application);
    return { Applications: items, Count: items.length };
  }

  async getApplication(applicationId: string): Promise<ApplicationItem> {
    const item = await this.deps.applications.get(applicationId);
    if (item === undefined) throw applicationNotFound(applicationId);
    return application(item);
  }

  /**
   * Application first, so its keys stop authorizing at once (the authorizer and the events handler check
   * that the application exists); then every key. The key cleanup also runs when the application is
   * already gone, so repeating a DELETE that failed half-way finishes the job (and then answers 404).
   */
  async deleteApplication(applicationId: string): Promise<string> {
    const existed = await this.deps.applications.delete(applicationId);
    const keys = await this.deps.apiKeys.deleteAll(applicationId);
    this.deps.logger.info(
      {
        application_id: applicationId,
        existed,
        keys_deleted: keys,
      },
      'application deleted',
    );
    if (!existed) throw applicationNotFound(applicationId);
    return `Deleted application ${applicationId}`;
  }

  /**
   * Writes the key, then checks (strongly consistent) that the application exists and removes the key
   * again when it does not. With deleteApplication's order (application, then a consistent Query of its
   * keys) no key outlives its application, whichever request wins the race. Answers once the
   * authorizer's index shows the key, so the client's first event batch is not refused (and that refusal
   * cached); if the index lags past the wait, the key still works moments later and a warning is logged.
   */
  async createAuthorization(applicationId: string, input: NamedInput): Promise<Authorization> {
    const value = this.generateKey();
    const at = this.timestamp();
    const item: ApiKeyItem = {
      ApplicationId: applicationId,
      ApiKeyId: this.newId(),
      ApiKeyHash: hashApiKey(value),
      ApiKeyMasked: maskApiKey(value),
      ApiKeyName: input.name,
      ApiKeyDescription: input.description,
      CreatedAt: at,
      UpdatedAt: at,
      Enabled: true,
    };
    await this.deps.apiKeys.create(item);
    if (!(await this.deps.applications.exists(applicationId))) {
      await this.deps.apiKeys.delete(applicationId, item.ApiKeyId);
      throw applicationNotFound(applicationId);
    }
    const waitMs = this.deps.keyIndexWaitMs ?? DEFAULT_KEY_INDEX_WAIT_MS;
    if (!(await this.deps.apiKeys.awaitIndexed(item.ApiKeyHash, item.ApiKeyId, waitMs))) {
      this.deps.logger.warn(
        {
          application_id: applicationId,
          api_key_id: item.ApiKeyId,
          waited_ms: waitMs,
        },
        'api key not yet visible to the authorizer',
      );
    }
    this.deps.logger.info({ application_id: applicationId, api_key_id: item.ApiKeyId }, 'api key created');
    return authorization(item, value);
  }

  async listAuthorizations(
    applicationId: string,
  ): Promise<{ Authorizations: Authorization[]; Count: number }> {
    if (!(await this.deps.applications.exists(applicationId))) throw applicationNotFound(applicationId);
    const items = (await this.deps.apiKeys.list(applicationId)).map((i) => authorization(i));
    return { Authorizations: items, Count: items.length };
  }

  async getAuthorization(applicationId: string, apiKeyId: string): Promise<Authorization> {
    const item = await this.deps.apiKeys.get(applicationId, apiKeyId);
    if (item === undefined) throw keyNotFound(applicationId, apiKeyId);
    return authorization(item);
  }

  async updateAuthorization(
    applicationId: string,
    apiKeyId: string,
    enabled: boolean,
  ): Promise<{ Enabled: boolean }> {
    const found = await this.deps.apiKeys.setEnabled(applicationId, apiKeyId, enabled, this.timestamp());
    if (!found) throw keyNotFound(applicationId, apiKeyId);
    this.deps.logger.info(
      {
        application_id: applicationId,
        api_key_id: apiKeyId,
        enabled,
      },
      'api key updated',
    );
    return { Enabled: enabled };
  }

  async deleteAuthorization(applicationId: string, apiKeyId: string): Promise<string> {
    if (!(await this.deps.apiKeys.delete(applicationId, apiKeyId)))
      throw keyNotFound(applicationId, apiKeyId);
    this.deps.logger.info({ application_id: applicationId, api_key_id: apiKeyId }, 'api key deleted');
    return `Deleted authorization ${apiKeyId}`;
  }
}
