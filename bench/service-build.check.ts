/*
 * Compiled by `npm run typecheck` only (tsconfig.bench.json, whose root is bench/, leaves it
 * out): fails when a name service-build.ts loads from the build is no longer exported by its
 * module in src/, or no longer has the type the bench uses it as.
 */
import type * as appConfig from '../src/config/app-config.js';
import type * as categoryStatements from '../src/categories/category-statements.js';
import type * as orderJson from '../src/store/order-json.js';
import type * as petStatements from '../src/pets/pet-statements.js';
import type * as orderRepository from '../src/store/order.repository.js';
import type * as orderStatements from '../src/store/order-statements.js';
import type * as petsDeprecation from '../src/pets/pets-deprecation.js';
import type * as securityHeaders from '../src/common/http/security-headers.js';
import type * as memoryRateLimitStorage from '../src/rate-limit/memory-rate-limit.storage.js';
import type * as rateLimitHeaders from '../src/rate-limit/rate-limit-headers.js';
import type { SERVICE_MODULES, ServiceListSizes, ServiceStatements } from './service-build.js';

interface Modules {
  'config/app-config.js': typeof appConfig;
  'categories/category-statements.js': typeof categoryStatements;
  'store/order-json.js': typeof orderJson;
  'store/order.repository.js': typeof orderRepository;
  'store/order-statements.js': typeof orderStatements;
  'pets/pet-statements.js': typeof petStatements;
  'pets/pets-deprecation.js': typeof petsDeprecation;
  'common/http/security-headers.js': typeof securityHeaders;
  'rate-limit/memory-rate-limit.storage.js': typeof memoryRateLimitStorage;
  'rate-limit/rate-limit-headers.js': typeof rateLimitHeaders;
}
type ModuleOf<Name extends keyof typeof SERVICE_MODULES> = Modules[(typeof SERVICE_MODULES)[Name]];

/** Each name's type in the module SERVICE_MODULES says it comes from. */
type Exported = {
  [Name in keyof typeof SERVICE_MODULES]: Name extends keyof ModuleOf<Name>
    ? ModuleOf<Name>[Name]
    : { notExportedBy: (typeof SERVICE_MODULES)[Name] };
};

type Conforms<Actual extends Expected, Expected> = Actual;
export type ListSizesConform = Conforms<Pick<Exported, keyof ServiceListSizes>, ServiceListSizes>;
export type StatementsConform = Conforms<
  Pick<Exported, keyof ServiceStatements>,
  ServiceStatements
>;
