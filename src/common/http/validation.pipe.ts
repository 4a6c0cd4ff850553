import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';

/**
 * Bodies are validated strictly: unknown fields are refused, and no type coercion happens
 * ("5" is not a number). The message says what is wrong with each offending field, up to
 * MAX_FIELDS_DESCRIBED of them.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value is read by describe() only; it never reaches the message.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationFailedError(describe(errors)),
  });
}

/** Enough to fix a body by; a body with thousands of unknown fields gets a short answer. */
const MAX_FIELDS_DESCRIBED = 5;

/** Constraints that check a value's type: when one fails, the others say nothing useful. */
const TYPE_CONSTRAINTS: Record<string, string> = {
  isInteger: 'an integer',
  isString: 'a string',
  isArray: 'an array',
};

function describe(errors: ValidationError[]): string {
  // The fields the body needs first, then the ones it must not have.
  const ordered = [
    ...errors.filter((error) => !isUnknownField(error)),
    ...errors.filter(isUnknownField),
  ];
  const messages = ordered.slice(0, MAX_FIELDS_DESCRIBED).map(describeField);
  if (messages.length === 0) return 'The request body is not valid.';
  const more = errors.length - messages.length;
  return messages.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/**
 * One field's problem: missing (optional fields are not validated when absent), of the wrong
 * type, or else what its rules say.
 */
function describeField({ property, value, constraints = {} }: ValidationError): string {
  const typeRule = Object.keys(constraints).find((name) => name in TYPE_CONSTRAINTS);
  if (value === undefined && !('whitelistValidation' in constraints)) {
    return `${property} is required`;
  }
  if (typeRule === 'isInteger' && typeof value === 'number') {
    return constraints[typeRule]; // a number with a fraction: the type is right, the value not
  }
  if (typeRule !== undefined) {
    return `${property} must be ${TYPE_CONSTRAINTS[typeRule]}, not ${jsonType(value)}`;
  }
  return Object.values(constraints).join('; ');
}

function isUnknownField(error: ValidationError): boolean {
  return error.constraints !== undefined && 'whitelistValidation' in error.constraints;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}
