import {
  idFilter,
  ListQueryPipe,
  statusFilter,
  type ListQuery,
} from '../../common/pagination/list-query.js';
import { PetStatus } from '../pet.entity.js';
import type { PetListFilter } from '../pet-statements.js';

export type PetListQuery = ListQuery<PetListFilter>;

/** The query string of v2 listPets, with listOrders' rules: read and documented. */
export const PET_LIST_QUERY = new ListQueryPipe<PetListFilter>({
  statuses: statusFilter('pets', Object.values(PetStatus), 'available'),
  categoryId: idFilter('categoryId', 'Only pets of this category', 1),
});
