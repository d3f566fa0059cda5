/** What the `gco queue` verbs share. */
import { pathOf } from '../../http.js';

export const queuedJobPath = (id: string) => pathOf('api', 'v1', 'queue', 'jobs', id);
