import { InitialSchema1795269600000 } from './1795269600000-InitialSchema.js';
import { ShipDateRange1795276800000 } from './1795276800000-ShipDateRange.js';
import { PagedLists1795400000000 } from './1795400000000-PagedLists.js';
import { IdempotencyKeys1795500000000 } from './1795500000000-IdempotencyKeys.js';
import { Webhooks1795600000000 } from './1795600000000-Webhooks.js';
import { PetLists1795700000000 } from './1795700000000-PetLists.js';
import { WebhookTraceparent1795800000000 } from './1795800000000-WebhookTraceparent.js';

/** Every migration, oldest first. Add each new migration here. */
export const migrations = [
  InitialSchema1795269600000,
  ShipDateRange1795276800000,
  PagedLists1795400000000,
  IdempotencyKeys1795500000000,
  Webhooks1795600000000,
  PetLists1795700000000,
  WebhookTraceparent1795800000000,
];
