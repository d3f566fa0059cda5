/** API key generation, hashing and masking, and the authorizer's Allow policy resource. */
import { describe, expect, test } from '@jest/globals';
import { allowPolicy, eventsResourceArn } from '../../../lambda/analytics-authorizer/policy.js';
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyFingerprint,
  maskApiKey,
} from '../../../lambda/shared/analytics/api-keys.js';

describe('API keys', () => {
  test('32 random bytes, base64url behind gak_; all distinct', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const k of keys) {
      expect(k).toMatch(/^gak_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(k.slice(4), 'base64url')).toHaveLength(32);
      expect(isWellFormedApiKey(k)).toBe(true);
    }
    expect(new Set(keys).size).toBe(200);
  });

  test('malformed values are recognised before any lookup', () => {
    const k = generateApiKey();
    for (const bad of [k.slice(0, -1), `${k}x`, k.replace('gak_', 'gax_'), ` ${k}`, `${k.slice(0, -1)}=`]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  test('the hash is SHA-256 hex; the mask shows 4 + 4 characters; the fingerprint 6 hex digits', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const k = 'gak_ABCDefghijklmnopqrstuvwxyz0123456789-_WXYZ';
    expect(maskApiKey(k)).toBe('gak_ABCD…WXYZ');
    expect(keyFingerprint(hashApiKey(k))).toMatch(/^[0-9a-f]{6}$/);
  });
});

describe('Allow policy', () => {
  const app = '0b6f1c9e-9d7c-4a57-9f0e-3f5a2b1c4d5e';
  /** The id in any letter case, as an IAM pattern: every letter is `?`, digits and hyphens fixed. */
  const anyCase = '0?6?1?9?-9?7?-4?57-9?0?-3?5?2?1?4?5?';

  test('one statement: POST on the key’s application events, API id and stage from the methodArn', () => {
    const arn = 'arn:aws:execute-api:us-east-1:111122223333:abc123/live/POST/applications/other/events';
    expect(allowPolicy(arn, { applicationId: app, apiKeyId: 'k1' })).toEqual({
      principalId: 'k1',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: `arn:aws:execute-api:us-east-1:111122223333:abc123/live/POST/applications/${anyCase}/events`,
          },
        ],
      },
      context: { applicationId: app, apiKeyId: 'k1' },
    });
  });

  test.each([
    'arn:aws-us-gov:execute-api:us-gov-west-1:111122223333:abc123/prod_2/GET/anything',
    'arn:aws-cn:execute-api:cn-north-1:111122223333:abc123/live/POST/applications/x/events',
  ])('works in every partition: %s', (arn) => {
    expect(eventsResourceArn(arn, app)).toBe(
      `${arn.split('/').slice(0, 2).join('/')}/POST/applications/${anyCase}/events`,
    );
  });

  test('the same pattern for the id in any letter case; only letters become wildcards', () => {
    const arn = 'arn:aws:execute-api:us-east-1:111122223333:abc123/live/POST/applications/x/events';
    expect(eventsResourceArn(arn, app.toUpperCase())).toBe(eventsResourceArn(arn, app));
    expect(eventsResourceArn(arn, app)).not.toContain('*');
    expect(eventsResourceArn(arn, app).replace(/\?/g, '')).toBe(
      'arn:aws:execute-api:us-east-1:111122223333:abc123/live/POST/applications/0619-97-457-90-352145/events',
    );
  });

  test.each(['', '*', 'arn:aws:execute-api:us-east-1:111122223333:abc123', 'arn:aws:s3:::bucket/key/x/y'])(
    'rejects %j (never a wildcard)',
    (arn) => {
      expect(() => eventsResourceArn(arn, app)).toThrow(/methodArn/);
    },
  );
});
