import { InitialSchema1795269600000 } from './1795269600000-InitialSchema.js';

/** Every migration, oldest first. Add each new migration here. */
export const migrations = [InitialSchema1795269600000];
