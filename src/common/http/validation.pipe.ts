import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';

/**
 * Bodies are validated strictly: unknown fields are refused, and no type coercion happens
 * ("5" is not a number). The message names each offending field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(describe(errors)),
  });
}

function describe(errors: ValidationError[]): string {
  const messages = errors.flatMap((error) => Object.values(error.constraints ?? {}));
  return messages.length > 0 ? messages.join('; ') : 'The request body is not valid.';
}
