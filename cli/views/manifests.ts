/**
 * Views of `gco manifests get|delete` answers (a resource's status; what was deleted). `-o name` prints
 * `kind/name` as the other commands do (views/jobs.ts: the kind in lower case, `deployment/web`), as
 * kubectl's `get|delete -o name` prints one `resource/name` per object (kubectl adds the API group,
 * `job.batch/train`: https://github.com/kubernetes/cli-runtime/blob/master/pkg/printers/name.go).
 */
import type { ResourceDeleted } from '../../contracts/api/manifest-processor.js';
import type { View } from '../output.js';
import { deletedView, recordOf, text } from './common.js';

/**
 * `kind/name` of the object an answer names (a status and a deletion both carry the object's
 * `kind` and `name`): its own `kind`, else `kind` as the command resolved it.
 */
const namesOf =
  (kind: string) =>
  (body: unknown): string[] => {
    const object = recordOf<Pick<ResourceDeleted, 'kind' | 'name'>>(body);
    return [`${(text(object.kind) || kind).toLowerCase()}/${text(object.name)}`];
  };

/** GET /api/v1/manifests/{ns}/{name}: the status as YAML (no view of its own), `kind/name` for -o name. */
export const resourceStatusView = (kind: string): View => ({ names: namesOf(kind) });

/** DELETE /api/v1/manifests/{ns}/{name}: the deleted object's fields, `kind/name` for -o name. */
export const resourceDeletedView = (kind: string): View => ({ ...deletedView, names: namesOf(kind) });
