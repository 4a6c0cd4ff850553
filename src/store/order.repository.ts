import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { selectJsonArray } from '../database/batched-query-stream.js';
import type { AttachedWrite } from '../database/attached-writes.js';
import { int64Id } from '../common/http/exact-int64.js';
import { ReadRouter } from '../database/read-router.js';
import { runStatement } from '../database/statement.js';
import { StreamSlots } from '../database/stream-slots.js';
import { InjectConfig } from '../config/app-config.provider.js';
import type { OrderListFilter } from './dto/order-list.query.js';
import { OrderEntity, OrderStatus, type Order } from './order.entity.js';
import { ORDER_JSON } from './order-json.js';
import { orderStatements } from './order-statements.js';

/**
 * Lists up to this long cost one statement; longer ones a COPY in a read-only transaction. See
 * docs/performance.md. The bench's bare servers read it from the build (bench/service-build.ts).
 */
export const LIST_SINGLE_QUERY_ROWS = 5000;

interface OrderRow {
  id: string;
  petId: string;
  quantity: number;
  shipDate: Date | null;
  status: OrderStatus;
}

function toOrder(row: OrderRow): Order {
  // Ids stop at 2^53 - 1 (see the initial migration), so Number() is exact.
  return {
    id: Number(row.id),
    petId: int64Id(row.petId),
    quantity: row.quantity,
    shipDate: row.shipDate,
    status: row.status,
  };
}

/**
 * Runs every statement about orders (src/store/order-statements.ts). State changes are single conditional statements: the row
 * is locked, the transition applies only from `pending`, and the status found is returned,
 * so concurrent requests on one order produce exactly one transition and each learns why.
 */
@Injectable()
export class OrderRepository {
  private readonly db: AppConfig['db'];

  constructor(
    @InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>,
    private readonly streamSlots: StreamSlots,
    private readonly reads: ReadRouter,
    @InjectConfig() config: AppConfig,
  ) {
    this.db = config.db;
  }

  /**
   * Every order by id, as one JSON array (OrderDto's JSON), rendered in Node from plain columns:
   * the text when the list fits in one statement, else a stream of its bytes (see
   * selectJsonArray for the one-statement and the COPY paths). A streamed list takes one of
   * the StreamSlots for the calling key or is a 429 (the key's share taken) or 503 (the
   * instance's slots taken). A list that fits in one statement takes none:
   * it holds its connection no longer than any other query (and a 503 for it would make a
   * balancer that retries on 503, like deploy/nginx, take the instance out of rotation).
   *
   * Every caller lists the same orders, so while lists are streaming the list is long: a key
   * at its share, or an instance with every slot taken, is refused before the first statement
   * reads its rows only to discard them. Without that, a key asking again and again made each
   * refusal cost a statement of LIST_SINGLE_QUERY_ROWS rows, and the other keys waited behind
   * them (docs/operating.md, Hostile clients test).
   */
  async listAllAsJson(callerKeyId: number): Promise<string | Readable> {
    this.streamSlots.refuseIfTaken(callerKeyId);
    // On a replica as on the primary: the COPY is one statement, so one snapshot.
    return this.reads.open((pool: pg.Pool) =>
      selectJsonArray(pool, {
        select: orderStatements.listAll().sql,
        singleQueryRows: LIST_SINGLE_QUERY_ROWS,
        statementTimeoutMs: this.db.statementTimeoutMs,
        streamTimeoutMs: this.db.streamTimeoutMs,
        json: ORDER_JSON,
        acquireCursorSlot: () => this.streamSlots.acquire(callerKeyId),
      }),
    );
  }

  /** One page of v2 listOrders (see orderStatements.listPage). */
  async listPage(
    filter: OrderListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<Order[]> {
    const rows = await runStatement<OrderRow>(
      this.reads,
      orderStatements.listPage(filter, order, after, take),
    );
    return rows.map(toOrder);
  }

  async findById(id: string): Promise<Order | null> {
    const rows = await runStatement<OrderRow>(this.reads, orderStatements.findById(id));
    return rows[0] ? toOrder(rows[0]) : null;
  }

  /**
   * Inserts a pending order when the pet exists, with its order.placed event; null when the
   * pet does not exist. Attached writes (src/database/attached-writes.ts) commit with it, in the
   * same statement; their outputs are answered by name.
   */
  async insertForExistingPet(
    petId: string,
    quantity: number,
    shipDate: Date | null,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Promise<{ order: Order | null; outputs: Record<string, unknown> }> {
    const rows = await runStatement<OrderRow & Record<string, unknown>>(
      this.orders,
      orderStatements.insertForExistingPet(petId, quantity, shipDate, attachedWrites),
    );
    const row = rows[0];
    const outputs = Object.fromEntries(
      attachedWrites.map(({ name }) => [name, row?.[name] ?? null]),
    );
    return { order: row && row.id !== null ? toOrder(row) : null, outputs };
  }

  /**
   * Cancels the order if pending, with its order.cancelled event; returns the status it had,
   * or null when there is none.
   */
  async cancelIfPending(id: string): Promise<OrderStatus | null> {
    const rows = await runStatement<{ previousStatus: OrderStatus }>(
      this.orders,
      orderStatements.cancelIfPending(id),
    );
    return rows[0]?.previousStatus ?? null;
  }

  /**
   * Ships the order if pending (ship date = now), with its order.shipped event; returns the
   * status it had and the order as it is now, or null when there is none.
   */
  async shipIfPending(id: string): Promise<{ previousStatus: OrderStatus; order: Order } | null> {
    const rows = await runStatement<OrderRow & { previousStatus: OrderStatus }>(
      this.orders,
      orderStatements.shipIfPending(id),
    );
    const row = rows[0];
    return row ? { previousStatus: row.previousStatus, order: toOrder(row) } : null;
  }
}
