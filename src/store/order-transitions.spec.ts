import { OrderStatus } from './order.entity.js';
import {
  OrderAlreadyShippedError,
  OrderNotFoundError,
  OrderNotPendingError,
} from './order.errors.js';
import { assertCancelAccepted, assertShipAccepted } from './order-transitions.js';

describe('order state rules', () => {
  describe('cancel', () => {
    it('accepts a pending order', () => {
      expect(() => assertCancelAccepted('1', OrderStatus.Pending)).not.toThrow();
    });

    it('accepts an already cancelled order again (a retried DELETE is safe)', () => {
      expect(() => assertCancelAccepted('1', OrderStatus.Cancelled)).not.toThrow();
    });

    it('refuses a shipped order with ORDER_ALREADY_SHIPPED (409)', () => {
      expect(() => assertCancelAccepted('7', OrderStatus.Shipped)).toThrow(
        OrderAlreadyShippedError,
      );
      try {
        assertCancelAccepted('7', OrderStatus.Shipped);
      } catch (error) {
        expect(error).toMatchObject({ code: 'ORDER_ALREADY_SHIPPED', status: 409 });
        expect((error as Error).message).toContain('7');
      }
    });

    it('reports a missing order as ORDER_NOT_FOUND (404)', () => {
      expect(() => assertCancelAccepted('9', null)).toThrow(OrderNotFoundError);
    });
  });

  describe('ship', () => {
    it('accepts a pending order', () => {
      expect(() => assertShipAccepted('1', OrderStatus.Pending)).not.toThrow();
    });

    it('accepts an already shipped order again', () => {
      expect(() => assertShipAccepted('1', OrderStatus.Shipped)).not.toThrow();
    });

    it('refuses a cancelled order with ORDER_NOT_PENDING (409)', () => {
      expect(() => assertShipAccepted('3', OrderStatus.Cancelled)).toThrow(OrderNotPendingError);
      expect(() => assertShipAccepted('3', OrderStatus.Cancelled)).toThrow('Order 3 is cancelled');
    });

    it('reports a missing order as ORDER_NOT_FOUND (404)', () => {
      expect(() => assertShipAccepted('9', null)).toThrow(new OrderNotFoundError('9'));
    });
  });
});
