/**
 * Queue list cursors are held by clients across deployments: the text for a given key is fixed, and a
 * cursor issued by an earlier version still continues its listing.
 */
import { decodeCursor, encodeCursor } from '../../../cluster/manifest-processor/src/queue/cursor.js';

const JOB = '0f8e3c2a-1b2c-4d5e-8f90-123456789abc';
const CREATED = '2025-01-02T03:04:05.678Z';
/** Cursors as the queue has issued them since the first release (base64url of {v, pk, ca[, tr]}). */
const REGION_CURSOR =
  'eyJ2IjoxLCJwayI6IjBmOGUzYzJhLTFiMmMtNGQ1ZS04ZjkwLTEyMzQ1Njc4OWFiYyIsImNhIjoiMjAyNS0wMS0wMlQwMzowNDowNS42NzhaIiwidHIiOiJ1cy1lYXN0LTEifQ';
const OVERALL_CURSOR =
  'eyJ2IjoxLCJwayI6IjBmOGUzYzJhLTFiMmMtNGQ1ZS04ZjkwLTEyMzQ1Njc4OWFiYyIsImNhIjoiMjAyNS0wMS0wMlQwMzowNDowNS42NzhaIn0';

test('the cursor of a LastEvaluatedKey is the same text as ever', () => {
  expect(encodeCursor({ pk: JOB, created_at: CREATED, target_region: 'us-east-1' })).toBe(REGION_CURSOR);
  expect(encodeCursor({ pk: JOB, created_at: CREATED, record_type: 'job' })).toBe(OVERALL_CURSOR);
});

test('earlier cursors decode to the index key they stood for', () => {
  expect(decodeCursor(REGION_CURSOR, 'us-east-1')).toEqual({
    pk: JOB,
    created_at: CREATED,
    target_region: 'us-east-1',
  });
  expect(decodeCursor(OVERALL_CURSOR, undefined)).toEqual({
    pk: JOB,
    created_at: CREATED,
    record_type: 'job',
  });
});
