import { HttpStatus } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import type { OrderStatus } from './order.entity.js';

export class OrderNotFoundError extends DomainError {
  constructor(orderId: string) {
    super(ErrorCode.ORDER_NOT_FOUND, `Order ${orderId} does not exist.`);
  }
}

export class OrderAlreadyShippedError extends DomainError {
  constructor(orderId: string) {
    super(
      ErrorCode.ORDER_ALREADY_SHIPPED,
      `Order ${orderId} has shipped and can no longer be cancelled.`,
    );
  }
}

export class OrderNotPendingError extends DomainError {
  constructor(orderId: string, status: OrderStatus) {
    super(ErrorCode.ORDER_NOT_PENDING, `Order ${orderId} is ${status} and cannot be shipped.`);
  }
}

/** The pet named in a new order does not exist: the body is well-formed but unusable (422). */
export class UnknownPetInOrderError extends DomainError {
  constructor(petId: string) {
    super(ErrorCode.PET_NOT_FOUND, `Pet ${petId} does not exist.`, {
      status: HttpStatus.UNPROCESSABLE_ENTITY,
    });
  }
}
