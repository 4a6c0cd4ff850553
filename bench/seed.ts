import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export interface BaseData {
  /** The API key both servers are called with. */
  apiKey: string;
  /** A second key, revoked by the auth-cache probe. */
  probeKey: string;
  probeKeyId: number;
  petIds: number[];
  /** A pet with a category, for GET /v1/pets/{id}. */
  petWithCategory: number;
  categoryCount: number;
}

const CATEGORY_COUNT = 20;
/** Orders go to pets uniformly: each pet has 1 % of them (a 1 % filter for the v2 lists). */
const PET_COUNT = 100;
const PET_STATUSES = ['available', 'pending', 'sold'];

/** `psk_` + 43 base64url characters, as src/auth/api-key.ts generates them. */
function generateApiKey(): string {
  return `psk_${randomBytes(32).toString('base64url')}`;
}

async function insertApiKey(client: pg.Client, name: string, key: string): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    'INSERT INTO api_keys (name, prefix, key_hash) VALUES ($1, $2, $3) RETURNING id',
    [name, key.slice(0, 12), createHash('sha256').update(key, 'utf8').digest('hex')],
  );
  return Number(rows[0]?.id);
}

/** Categories, pets and the API keys; no orders yet. */
export async function seedBase(client: pg.Client): Promise<BaseData> {
  await client.query(
    `INSERT INTO categories (name, description)
     SELECT 'bench-category-' || lpad(n::text, 2, '0'),
            CASE WHEN n % 3 = 0 THEN NULL ELSE 'Benchmark category number ' || n END
     FROM generate_series(1, $1::int) AS n`,
    [CATEGORY_COUNT],
  );
  const { rows: pets } = await client.query<{ id: string; category_id: string | null }>(
    `INSERT INTO pets (name, category_id, status)
     SELECT 'Pet ' || n,
            CASE WHEN n % 7 = 0 THEN NULL
                 ELSE (SELECT id FROM categories ORDER BY id OFFSET (n % $2::int) LIMIT 1) END,
            ($3::text[])[1 + n % 3]
     FROM generate_series(1, $1::int) AS n
     RETURNING id, category_id`,
    [PET_COUNT, CATEGORY_COUNT, PET_STATUSES],
  );
  const withCategory = pets.find((pet) => pet.category_id !== null);
  if (!withCategory) throw new Error('seeding made no pet with a category');
  const apiKey = generateApiKey();
  const probeKey = generateApiKey();
  await insertApiKey(client, 'bench', apiKey);
  const probeKeyId = await insertApiKey(client, 'bench auth-cache probe', probeKey);
  return {
    apiKey,
    probeKey,
    probeKeyId,
    petIds: pets.map((pet) => Number(pet.id)),
    petWithCategory: Number(withCategory.id),
    categoryCount: CATEGORY_COUNT,
  };
}

/** A small deterministic generator (mulberry32), so every run seeds the same orders. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DAY_MS = 86_400_000;
/** The seed's "now": planned ship dates fall within 30 days after it, shipped ones within a year before. */
export const SEED_NOW = Date.UTC(2026, 10, 21, 12);
const ROWS_PER_CHUNK = 5000;

/**
 * Adds orders until the table holds `target`, through COPY FROM STDIN: 60 % pending (a third
 * with a planned ship date), 25 % shipped (ship date in the past: the check constraint),
 * 15 % cancelled. Then VACUUM ANALYZE, so neither server pays for hint bits or bad estimates.
 */
export async function growOrders(
  client: pg.Client,
  petIds: number[],
  target: number,
  label: string,
): Promise<void> {
  const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM orders');
  const start = Number(rows[0]?.count ?? 0);
  const toAdd = target - start;
  if (toAdd > 0) {
    const next = random(target);
    const now = SEED_NOW;
    const bar = new ProgressBar(label, toAdd);
    function* chunks(): Generator<string> {
      let made = 0;
      while (made < toAdd) {
        const count = Math.min(ROWS_PER_CHUNK, toAdd - made);
        let text = '';
        for (let i = 0; i < count; i++) {
          const petId = petIds[Math.floor(next() * petIds.length)] ?? petIds[0];
          const quantity = 1 + Math.floor(next() * next() * 20);
          const roll = next();
          let shipDate = '\\N';
          let status = 'pending';
          if (roll < 0.6) {
            if (roll < 0.2)
              shipDate = new Date(now + Math.floor(next() * 30 * DAY_MS)).toISOString();
          } else if (roll < 0.85) {
            status = 'shipped';
            shipDate = new Date(now - Math.floor(next() * 365 * DAY_MS)).toISOString();
          } else {
            status = 'cancelled';
          }
          text += `${petId}\t${quantity}\t${shipDate}\t${status}\n`;
        }
        made += count;
        bar.update(made);
        yield text;
      }
    }
    await pipeline(
      Readable.from(chunks()),
      client.query(copyFrom('COPY orders (pet_id, quantity, ship_date, status) FROM STDIN')),
    );
    bar.done();
  }
  await client.query('VACUUM (ANALYZE) orders');
}

/**
 * Adds pets until the table holds `target` (for v2 listPets' plans), in one INSERT … SELECT:
 * 60 % available, 25 % pending, 15 % sold; a category for all but 1 % of them, spread evenly
 * over the first 96 categories by id (about 1 % each). The status and the category are
 * independent. Then VACUUM ANALYZE.
 */
export async function growPets(client: pg.Client, target: number): Promise<void> {
  await client.query(
    `INSERT INTO pets (name, category_id, status)
     SELECT 'Bench pet ' || n,
            CASE WHEN n % 97 = 0 THEN NULL ELSE first_categories.ids[n % 97] END,
            CASE WHEN n % 20 < 12 THEN 'available' WHEN n % 20 < 17 THEN 'pending' ELSE 'sold' END
     FROM generate_series(1, $1::int - (SELECT count(*)::int FROM pets)) AS n,
          (SELECT array_agg(id ORDER BY id) AS ids
           FROM (SELECT id FROM categories ORDER BY id LIMIT 96) AS c) AS first_categories`,
    [target],
  );
  await client.query('VACUUM (ANALYZE) pets');
}

/** Pending order ids, for DELETE /v1/store/orders/{id}. */
export async function pendingOrderIds(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM orders WHERE status = 'pending' ORDER BY id`,
  );
  return rows.map((row) => Number(row.id));
}

/** A progress bar on stderr: redrawn in place on a terminal, a line per 10 % otherwise. */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDraw = 0;
  private lastDecile = -1;
  private readonly tty = process.stderr.isTTY;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number): void {
    const now = Date.now();
    if (this.tty) {
      if (now - this.lastDraw < 100 && done < this.total) return;
      this.lastDraw = now;
      process.stderr.write(`\r${this.line(done)}\x1b[K`);
    } else {
      const decile = Math.floor((done / this.total) * 10);
      if (decile === this.lastDecile) return;
      this.lastDecile = decile;
      process.stderr.write(`${this.line(done)}\n`);
    }
  }

  done(): void {
    if (this.tty) process.stderr.write('\n');
  }

  private line(done: number): string {
    const width = 30;
    const fraction = this.total === 0 ? 1 : done / this.total;
    const filled = Math.round(fraction * width);
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? (this.total - done) / rate : 0;
    return (
      `  ${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` +
      `${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en')}/${this.total.toLocaleString('en')} ` +
      `${Math.round(rate / 1000)}k rows/s, ${seconds.toFixed(1)} s` +
      (done < this.total ? `, ETA ${eta.toFixed(0)} s` : '')
    );
  }
}
