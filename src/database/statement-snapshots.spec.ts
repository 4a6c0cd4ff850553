import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { apiKeyStatements } from '../auth/api-key-statements.js';
import { categoryJson } from '../categories/category-json.js';
import { categoryStatements } from '../categories/category-statements.js';
import { serviceSecretStatements } from '../common/pagination/service-secret-statements.js';
import { idempotencyStatements } from '../idempotency/idempotency-statements.js';
import { PetStatus } from '../pets/pet.entity.js';
import { petStatements } from '../pets/pet-statements.js';
import { OrderStatus } from '../store/order.entity.js';
import { orderJson } from '../store/order-json.js';
import { orderStatements } from '../store/order-statements.js';
import { webhookDeliveryStatements } from '../webhooks/webhook-delivery-statements.js';
import { webhookJson } from '../webhooks/webhook-json.js';
import { webhookSubscriptionStatements } from '../webhooks/webhook-subscription-statements.js';
import type { AttachedWrite } from './attached-writes.js';
import type { Statement } from './statement.js';

/*
 * The SQL every statement builder makes, snapshotted into the repository beside its builder
 * (src/store/order-statements.sql and the like), so a change to a statement shows in review.
 * This test fails when a snapshot no longer matches; `npm run sql:snapshot` runs it with
 * WRITE_SQL_SNAPSHOTS=1 to write them again. Each builder is called with representative
 * arguments: the ones that change its SQL (a list's order, cursor and filters; a create's
 * Idempotency-Key record) in a few combinations, no filter and all of them among them.
 */

const WRITE = process.env.WRITE_SQL_SNAPSHOTS === '1';
const ROOT = new URL('../../', import.meta.url);

/** A builder's call: what it is called for, and what it makes. */
interface Case {
  builder: string;
  title: string;
  made: Statement | AttachedWrite;
}

interface Snapshot {
  /** The builders' file; the snapshot is the same path ending in .sql. */
  source: string;
  /** Every builder of the file, so none goes without a case. */
  builders: object;
  cases: Case[];
}

const at = (iso: string) => new Date(iso);
const SECRET = Buffer.alloc(32, 7);
const CLAIM = { id: '11', token: '6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f' };
/** How the claims below hold their key. */
const HOLD = {
  fingerprint: Buffer.alloc(32, 1),
  token: CLAIM.token,
  lockSeconds: 60,
  retentionSeconds: 86400,
};
/** The record an Idempotency-Key create completes in its own statement. */
const recording = (bodySql: string, locationPrefix: string | null) =>
  idempotencyStatements.recordResponse(CLAIM, {
    bodySql,
    locationPrefix,
    rejection: { status: 409, body: '{"code":"…","message":"…","status":409}' },
    retentionSeconds: 86400,
  });

const SNAPSHOTS: Snapshot[] = [
  {
    source: 'src/store/order-statements.ts',
    builders: orderStatements,
    cases: [
      { builder: 'listAll', title: 'v1 listOrders', made: orderStatements.listAll() },
      {
        builder: 'listPage',
        title: 'v2 listOrders: first page, ascending, no filter',
        made: orderStatements.listPage({}, 'asc', undefined, 101),
      },
      {
        builder: 'listPage',
        title: 'v2 listOrders: a later page, descending, one status',
        made: orderStatements.listPage({ statuses: [OrderStatus.Pending] }, 'desc', '42', 21),
      },
      {
        builder: 'listPage',
        title: 'v2 listOrders: a later page, every filter, two statuses',
        made: orderStatements.listPage(
          {
            statuses: [OrderStatus.Pending, OrderStatus.Shipped],
            petId: '7',
            shipDateFrom: '2026-01-01T00:00:00.000000Z',
            shipDateTo: '2027-01-01T00:00:00.000000Z',
          },
          'asc',
          '42',
          101,
        ),
      },
      { builder: 'findById', title: 'getOrderById', made: orderStatements.findById('42') },
      {
        builder: 'insertForExistingPet',
        title: 'placeOrder',
        made: orderStatements.insertForExistingPet('7', 2, at('2026-12-01T08:30:00.000Z')),
      },
      {
        builder: 'insertForExistingPet',
        title: 'placeOrder under an Idempotency-Key',
        made: orderStatements.insertForExistingPet('7', 2, null, [
          recording(orderJson('main'), '/v1/store/orders/'),
        ]),
      },
      {
        builder: 'cancelIfPending',
        title: 'cancelOrder',
        made: orderStatements.cancelIfPending('42'),
      },
      { builder: 'shipIfPending', title: 'shipOrder', made: orderStatements.shipIfPending('42') },
    ],
  },
  {
    source: 'src/categories/category-statements.ts',
    builders: categoryStatements,
    cases: [
      { builder: 'listAll', title: 'v1 listCategories', made: categoryStatements.listAll() },
      {
        builder: 'listPage',
        title: 'v2 listCategories: first page, ascending',
        made: categoryStatements.listPage('asc', undefined, 101),
      },
      {
        builder: 'listPage',
        title: 'v2 listCategories: a later page, descending',
        made: categoryStatements.listPage('desc', '42', 21),
      },
      {
        builder: 'insertUnlessNameTaken',
        title: 'createCategory',
        made: categoryStatements.insertUnlessNameTaken('dog', 'Dogs'),
      },
      {
        builder: 'insertUnlessNameTaken',
        title: 'createCategory under an Idempotency-Key',
        made: categoryStatements.insertUnlessNameTaken('dog', null, [
          recording(categoryJson('main'), null),
        ]),
      },
    ],
  },
  {
    source: 'src/pets/pet-statements.ts',
    builders: petStatements,
    cases: [
      {
        builder: 'findByIdWithCategory',
        title: 'getPetById and v2 getPet',
        made: petStatements.findByIdWithCategory('7'),
      },
      {
        builder: 'listPage',
        title: 'v2 listPets: first page, ascending, no filter',
        made: petStatements.listPage({}, 'asc', undefined, 101),
      },
      {
        builder: 'listPage',
        title: 'v2 listPets: a later page, descending, one status',
        made: petStatements.listPage({ statuses: [PetStatus.Available] }, 'desc', '42', 21),
      },
      {
        builder: 'listPage',
        title: 'v2 listPets: a later page, a category and two statuses',
        made: petStatements.listPage(
          { statuses: [PetStatus.Available, PetStatus.Pending], categoryId: '2' },
          'asc',
          '42',
          101,
        ),
      },
    ],
  },
  {
    source: 'src/webhooks/webhook-subscription-statements.ts',
    builders: webhookSubscriptionStatements,
    cases: [
      {
        builder: 'lockCreationsForKey',
        title: 'createWebhook, first',
        made: webhookSubscriptionStatements.lockCreationsForKey(3),
      },
      {
        builder: 'insertUnderLimit',
        title: 'createWebhook',
        made: webhookSubscriptionStatements.insertUnderLimit(
          3,
          {
            url: 'https://hooks.example.com/petstore',
            events: ['order.placed'],
            description: null,
          },
          SECRET,
          20,
        ),
      },
      {
        builder: 'insertUnderLimit',
        title: 'createWebhook under an Idempotency-Key',
        made: webhookSubscriptionStatements.insertUnderLimit(
          3,
          {
            url: 'https://hooks.example.com/petstore',
            events: ['order.placed', 'category.created'],
            description: 'Warehouse',
          },
          SECRET,
          20,
          [recording(webhookJson('main'), '/v2/webhooks/')],
        ),
      },
      {
        builder: 'secretForKey',
        title: "createWebhook's Idempotency-Key replay",
        made: webhookSubscriptionStatements.secretForKey(3, '12'),
      },
      {
        builder: 'findForKey',
        title: 'getWebhook',
        made: webhookSubscriptionStatements.findForKey(3, '12'),
      },
      {
        builder: 'listPageForKey',
        title: 'listWebhooks: first page, ascending',
        made: webhookSubscriptionStatements.listPageForKey(3, 'asc', undefined, 101),
      },
      {
        builder: 'listPageForKey',
        title: 'listWebhooks: a later page, descending',
        made: webhookSubscriptionStatements.listPageForKey(3, 'desc', '12', 21),
      },
      {
        builder: 'deleteForKey',
        title: 'deleteWebhook',
        made: webhookSubscriptionStatements.deleteForKey(3, '12'),
      },
      {
        builder: 'listDeliveriesPage',
        title: 'listWebhookDeliveries: first page, ascending',
        made: webhookSubscriptionStatements.listDeliveriesPage(12, 'asc', undefined, 101),
      },
      {
        builder: 'listDeliveriesPage',
        title: 'listWebhookDeliveries: a later page, descending',
        made: webhookSubscriptionStatements.listDeliveriesPage(12, 'desc', '99', 21),
      },
      {
        builder: 'updateForKey',
        title: 'updateWebhook: a new url and description, disabled',
        made: webhookSubscriptionStatements.updateForKey(3, '12', {
          url: 'https://hooks.example.com/v2',
          description: null,
          enabled: false,
        }),
      },
      {
        builder: 'rotateSecretForKey',
        title: 'rotateWebhookSecret, the previous secret signing for a day',
        made: webhookSubscriptionStatements.rotateSecretForKey(3, '12', SECRET, 86400),
      },
      {
        builder: 'secretOfRotation',
        title: 'rotateWebhookSecret, a replay: the secret that rotation made',
        made: webhookSubscriptionStatements.secretOfRotation(3, '12', 2),
      },
      {
        builder: 'stopForKey',
        title: 'deleteWebhook, first: no attempt claimed after it',
        made: webhookSubscriptionStatements.stopForKey(3, '12'),
      },
      {
        builder: 'attemptsUnderWay',
        title: 'deleteWebhook, then: waits for the attempts under way',
        made: webhookSubscriptionStatements.attemptsUnderWay(12, 10000),
      },
      {
        builder: 'findDelivery',
        title: 'getWebhookDelivery',
        made: webhookSubscriptionStatements.findDelivery(
          12,
          'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
        ),
      },
      {
        builder: 'sendAgain',
        title: 'redeliverWebhookDelivery',
        made: webhookSubscriptionStatements.sendAgain(
          12,
          'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
          null,
        ),
      },
      {
        builder: 'sendAgain',
        title: 'recoverWebhookDeliveries',
        made: webhookSubscriptionStatements.sendAgain(12, null, '2026-11-25T10:00:00.000000Z'),
      },
    ],
  },
  {
    source: 'src/webhooks/webhook-delivery-statements.ts',
    builders: webhookDeliveryStatements,
    cases: [
      {
        builder: 'claimDue',
        title: 'the dispatcher claims due deliveries',
        made: webhookDeliveryStatements.claimDue(16, 30000),
      },
      {
        builder: 'recordAttempts',
        title: 'a batch of attempts: one succeeded, one failed and retried later',
        made: webhookDeliveryStatements.recordAttempts(
          [
            {
              deliveryId: '98',
              attempt: 1,
              status: 'succeeded',
              outcome: {
                ok: true,
                responseStatus: 204,
                durationMs: 3,
                error: null,
                retryInMs: null,
              },
            },
            {
              deliveryId: '99',
              attempt: 2,
              status: 'pending',
              outcome: {
                ok: false,
                responseStatus: 503,
                durationMs: 120,
                error: 'HTTP 503',
                retryInMs: 30000,
              },
            },
          ],
          432000,
        ),
      },
      {
        builder: 'pendingBacklog',
        title: 'the backlog metrics',
        made: webhookDeliveryStatements.pendingBacklog(),
      },
      {
        builder: 'purgeFinished',
        title: 'the purge of finished deliveries',
        made: webhookDeliveryStatements.purgeFinished(604800000, 1000),
      },
    ],
  },
  {
    source: 'src/idempotency/idempotency-statements.ts',
    builders: idempotencyStatements,
    cases: [
      {
        builder: 'claim',
        title: 'a request with an Idempotency-Key',
        made: idempotencyStatements.claim(
          { apiKeyId: 3, version: 'v1', operation: 'placeOrder', key: 'k-1' },
          HOLD,
        ),
      },
      {
        builder: 'takeOver',
        title: 'a key free again',
        made: idempotencyStatements.takeOver('11', HOLD),
      },
      {
        builder: 'recordResponse',
        title: "a create's record (the create's own statements show it in place)",
        made: recording('<the resource json over main>', '/v1/store/orders/'),
      },
      {
        builder: 'release',
        title: 'a key freed after a failure',
        made: idempotencyStatements.release(CLAIM),
      },
      {
        builder: 'purgeExpired',
        title: 'the purge of expired records',
        made: idempotencyStatements.purgeExpired(1000),
      },
    ],
  },
  {
    source: 'src/auth/api-key-statements.ts',
    builders: apiKeyStatements,
    cases: [
      {
        builder: 'recordLastUsed',
        title: "the keys' last use, written once a minute",
        made: apiKeyStatements.recordLastUsed([
          [1, at('2026-11-25T10:00:00.000Z')],
          [3, at('2026-11-25T10:00:05.000Z')],
        ]),
      },
    ],
  },
  {
    source: 'src/common/pagination/service-secret-statements.ts',
    builders: serviceSecretStatements,
    cases: [
      {
        builder: 'insertOrRead',
        title: "the cursors' key",
        made: serviceSecretStatements.insertOrRead('cursor', SECRET),
      },
    ],
  },
];

/** A statement's text as the snapshot shows it: lines after the first dedented, no blank lines. */
function shown(sql: string): string {
  const [first, ...rest] = sql.split('\n').map((line) => line.trimEnd());
  const lines = rest.filter((line) => line !== '');
  const indent = Math.min(...lines.map((line) => line.length - line.trimStart().length));
  return [first.trim(), ...lines.map((line) => line.slice(indent))].join('\n');
}

function param(value: unknown): string {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(param).join(', ')}]`;
  return value === null ? 'NULL' : JSON.stringify(value);
}

const params = (values: readonly unknown[]) =>
  values.length === 0 ? [] : [`-- parameters: ${values.map(param).join(', ')}`];

function caseText({ builder, title, made }: Case): string {
  const heading = `-- ${builder}: ${title}`;
  if (!('name' in made)) {
    return [heading, ...params(made.params), `${shown(made.sql)};`].join('\n');
  }
  // An attached write: its parts, as withAttachedWrites places them (src/database/attached-writes.ts).
  const write = made;
  return [
    heading,
    ...params(write.params),
    ...(write.guard === undefined
      ? []
      : [`-- guard, ${write.name}_guard:`, `${shown(write.guard)};`]),
    ...(write.ctes ?? []).flatMap((cte) => ['-- before it:', `${shown(cte)};`]),
    `-- ${write.name}:`,
    `${shown(write.sql)};`,
    ...(write.output === undefined
      ? []
      : [`-- output "${write.name}":`, `SELECT ${shown(write.output)} FROM ${write.name};`]),
  ].join('\n');
}

function snapshotText({ source, cases }: Snapshot): string {
  return `-- ${source}: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by \`npm run sql:snapshot\`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

${cases.map(caseText).join('\n\n')}
`;
}

describe('SQL snapshots', () => {
  describe.each(SNAPSHOTS.map((snapshot) => [snapshot.source, snapshot] as const))(
    '%s',
    (source, snapshot) => {
      const file = fileURLToPath(new URL(source.replace(/\.ts$/, '.sql'), ROOT));

      it('has a case for every builder', () => {
        const covered = new Set(snapshot.cases.map((each) => each.builder));
        expect(Object.keys(snapshot.builders).filter((name) => !covered.has(name))).toEqual([]);
      });

      it(WRITE ? 'is written' : 'is up to date (else: npm run sql:snapshot)', async () => {
        const text = snapshotText(snapshot);
        if (WRITE) {
          await writeFile(file, text);
          return;
        }
        expect(await readFile(file, 'utf8').catch(() => '(no snapshot)')).toBe(text);
      });
    },
  );
});
