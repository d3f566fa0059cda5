/** What the `gco analytics` verbs share. */
import { pathOf } from '../../http.js';

export const appPath = (id: string, ...rest: string[]) => pathOf('applications', id, ...rest);

/** The body of creating an application or a key: `Name`, and `Description` when given. */
export const nameAndDescription = (name: string, description: string | undefined) => ({
  Name: name,
  Description: description,
});
