import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';

export class CategoryExistsError extends DomainError {
  constructor(name: string) {
    super(
      ErrorCode.CATEGORY_EXISTS,
      `A category named "${name}" already exists (names are compared ignoring case).`,
    );
  }
}
