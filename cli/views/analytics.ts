/** Views of the analytics API's applications and API keys (docs/analytics-api.md). */
import type { View } from '../output.js';
import { fieldsView, listView, recordOf, text, type Fields } from './common.js';

interface Application {
  ApplicationId: string;
  ApplicationName: string;
  Description: string;
  CreatedAt: string;
  UpdatedAt: string;
}

interface ApiKey {
  ApiKeyId: string;
  ApiKeyName: string;
  /** Masked except in the answer that created the key. */
  ApiKeyValue: string;
  ApplicationId: string;
  ApiKeyDescription: string;
  Enabled: boolean;
  CreatedAt: string;
  UpdatedAt: string;
}

const applicationId = (a: Fields<Application>) => text(a.ApplicationId);

export const applicationListView = listView<Application>(
  'Applications',
  [
    ['application id', (a) => a.ApplicationId],
    ['name', (a) => a.ApplicationName],
    ['description', (a) => a.Description],
    ['created', (a) => a.CreatedAt],
    ['updated', (a) => a.UpdatedAt, 'wide'],
  ],
  applicationId,
  'application',
);

export const applicationView = fieldsView<Application>(
  ['ApplicationId', 'ApplicationName', 'Description', 'CreatedAt', 'UpdatedAt'],
  applicationId,
  'application',
);

const keyId = (k: Fields<ApiKey>) => text(k.ApiKeyId);

export const apiKeyListView = listView<ApiKey>(
  'Authorizations',
  [
    ['key id', (k) => k.ApiKeyId],
    ['name', (k) => k.ApiKeyName],
    ['enabled', (k) => k.Enabled],
    ['key', (k) => k.ApiKeyValue],
    ['created', (k) => k.CreatedAt],
    ['description', (k) => k.ApiKeyDescription, 'wide'],
    ['updated', (k) => k.UpdatedAt, 'wide'],
  ],
  keyId,
  'apikey',
);

export const apiKeyView = fieldsView<ApiKey>(
  [
    'ApiKeyId',
    'ApiKeyName',
    'ApiKeyValue',
    'ApplicationId',
    'ApiKeyDescription',
    'Enabled',
    'CreatedAt',
    'UpdatedAt',
  ],
  keyId,
  'apikey',
);

/**
 * The answer of creating a key: the full value is shown only this once, so it is what --quiet prints
 * (what `analytics send --key` takes); `-o name` still names the key by its id.
 */
export const createdApiKeyView: View = {
  ...apiKeyView,
  ids: (body) => [text(recordOf<ApiKey>(body).ApiKeyValue)],
  names: (body) => [`apikey/${keyId(recordOf<ApiKey>(body))}`],
};
