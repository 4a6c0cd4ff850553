import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';

export class PetNotFoundError extends DomainError {
  constructor(petId: string) {
    super(ErrorCode.PET_NOT_FOUND, `Pet ${petId} does not exist.`);
  }
}
