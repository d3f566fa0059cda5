/** TypeBox helpers of the services' route schemas: they live on the ground floor (contracts/api/schema.ts). */
export { FreeFormObject, Nullable, StringEnum } from '../../contracts/api/schema.js';
