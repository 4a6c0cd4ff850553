import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

/** The body of every error response. */
@ApiSchema({ name: 'Error' })
export class ErrorDto {
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', example: ErrorCode.VALIDATION_FAILED })
  code: ErrorCode;

  @ApiProperty({ example: 'quantity must not be greater than 1000', maxLength: 1000 })
  message: string;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 400, maximum: 599, example: 400 })
  status: number;
}

/** The Error body of a DomainError. */
export function errorBody(error: DomainError): ErrorDto {
  return { code: error.code, message: error.message, status: error.status };
}
