import {
  categoryRow,
  countCategoriesNamed,
  countRows,
  insertCategory,
} from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('categories (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** A message that names `field` as a word (so "id" does not match "valid"). */
  const namesField = (field: string): unknown =>
    expect.stringMatching(new RegExp(`\\b${field}\\b`));

  /** POSTs `body` as raw JSON text, so the test decides every byte (lone surrogates, null, ...). */
  function postRaw(body: string) {
    return t.http
      .post('/v1/categories')
      .set('Authorization', t.auth)
      .set('Content-Type', 'application/json')
      .send(body);
  }

  describe('GET /v1/categories (listCategories)', () => {
    it('lists every category by id ascending, omitting description when there is none', async () => {
      const cat = await insertCategory(t.db, 'Cat', 'Cats of every size');
      const fish = await insertCategory(t.db, 'Fish');
      const bird = await insertCategory(t.db, 'Bird', 'Feathered friends');

      const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      t.spec.check('listCategories', res);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const ids = (res.body as Array<{ id: number }>).map((category) => category.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(res.body).toHaveLength(await countRows(t.db, 'categories'));
      const byId = new Map(
        (res.body as Array<{ id: number }>).map((category) => [category.id, category]),
      );
      expect(byId.get(cat)).toEqual({ id: cat, name: 'Cat', description: 'Cats of every size' });
      expect(byId.get(fish)).toEqual({ id: fish, name: 'Fish' });
      expect(byId.get(bird)).toEqual({ id: bird, name: 'Bird', description: 'Feathered friends' });
    });

    it('lists exactly what the database holds, including a category created through the API', async () => {
      const created = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'Lizard', description: 'Scaly' })
        .expect(201);
      t.spec.check('createCategory', created);

      const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      t.spec.check('listCategories', res);
      const { rows } = await t.db.query<{ id: string; name: string; description: string | null }>(
        'SELECT id, name, description FROM categories ORDER BY id',
      );
      expect(res.body).toEqual(
        rows.map((row) =>
          row.description === null
            ? { id: Number(row.id), name: row.name }
            : { id: Number(row.id), name: row.name, description: row.description },
        ),
      );
      expect(res.body).toContainEqual({
        id: created.body.id,
        name: 'Lizard',
        description: 'Scaly',
      });
    });
  });

  describe('POST /v1/categories (createCategory)', () => {
    it('creates a category with a new id and no description when none is given', async () => {
      const before = await countRows(t.db, 'categories');
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'Hamster' })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Hamster' });
      expect(Number.isInteger(res.body.id)).toBe(true);
      expect(res.body.id).toBeGreaterThan(0);
      expect(await categoryRow(t.db, res.body.id)).toEqual({ name: 'Hamster', description: null });
      expect(await countRows(t.db, 'categories')).toBe(before + 1);
    });

    it('creates a category with a description, line breaks allowed', async () => {
      const description = 'Small rodents kept as pets.\nThey like to run.';
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'Gerbil', description })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Gerbil', description });
      expect(await categoryRow(t.db, res.body.id)).toEqual({ name: 'Gerbil', description });
    });

    it('trims white space around the name before storing it', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: ' \t Guinea pig \n ' })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Guinea pig' });
      expect((await categoryRow(t.db, res.body.id))?.name).toBe('Guinea pig');
    });

    it('accepts a name of exactly 64 characters, counted after trimming', async () => {
      const name = `Long${'n'.repeat(60)}`;
      expect(name).toHaveLength(64);
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: `   ${name}   ` })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name });
      expect((await categoryRow(t.db, res.body.id))?.name).toBe(name);
    });

    it('accepts a unicode name and returns it unchanged', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'Känguru 🦘' })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Känguru 🦘' });
      expect((await categoryRow(t.db, res.body.id))?.name).toBe('Känguru 🦘');
    });

    it('counts characters, not UTF-16 units: 63 letters and an emoji make 64', async () => {
      const name = `${'e'.repeat(63)}🐍`;
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body.name).toBe(name);
    });

    it('accepts a description of exactly 500 characters', async () => {
      const description = 'd'.repeat(500);
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'Snail', description })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Snail', description });
    });

    it.each(['dog', 'DOG', 'Dog', 'dOg', '  dog  ', '\tDOG\n'])(
      'answers 409 CATEGORY_EXISTS for %j when "Dog" exists, and writes nothing',
      async (name) => {
        if ((await countCategoriesNamed(t.db, 'dog')) === 0) await insertCategory(t.db, 'Dog');
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name, description: 'a second dog category' })
          .expect(409);
        t.spec.check('createCategory', res);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({
          code: 'CATEGORY_EXISTS',
          message: expect.any(String),
          status: 409,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
        expect(await countCategoriesNamed(t.db, 'dog')).toBe(1);
      },
    );

    it('answers 409 CATEGORY_EXISTS for a name that differs only in the case of non-ASCII letters', async () => {
      await insertCategory(t.db, 'Éclair-Äffchen');
      const before = await countRows(t.db, 'categories');
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'éclair-äffchen' })
        .expect(409);
      t.spec.check('createCategory', res);
      expect(res.body.code).toBe('CATEGORY_EXISTS');
      expect(await countRows(t.db, 'categories')).toBe(before);
    });

    it.each([
      [
        'composed (NFC) first, then decomposed (NFD)',
        'Caf\u00e9 Cr\u00e8me',
        'Cafe\u0301 Cre\u0300me',
      ],
      [
        'decomposed (NFD) first, then composed (NFC)',
        'Tha\u0300i Bi\u0300nh',
        'Th\u00e0i B\u00ecnh',
      ],
      ['composed, then decomposed in another case', 'Soup\u00e7on', 'SOUPC\u0327ON'],
      ['Hangul syllables, then their jamo', '\ud55c\uad6d', '\u1112\u1161\u11ab\u1100\u116e\u11a8'],
    ])(
      'stores names in Unicode NFC, so one name in two forms is 409 CATEGORY_EXISTS: %s',
      async (_label, first, second) => {
        const created = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name: first, description: 'Cafe\u0301' })
          .expect(201);
        t.spec.check('createCategory', created);
        expect(created.body).toEqual({
          id: expect.any(Number),
          name: first.normalize('NFC'),
          description: 'Caf\u00e9',
        });
        expect(await categoryRow(t.db, created.body.id as number)).toEqual({
          name: first.normalize('NFC'),
          description: 'Caf\u00e9',
        });
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name: second })
          .expect(409);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'CATEGORY_EXISTS',
          message: expect.any(String),
          status: 409,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    it.each([
      ['a zero-width space (U+200B)', '\u200b', 'name'],
      ['zero-width joiner and non-joiner', '\u200d\u200c', 'name'],
      ['a word joiner and a byte order mark', '\u2060\ufeff\u2060', 'name'],
      ['a soft hyphen', '\u00ad', 'name'],
      ['a Hangul filler (U+3164)', '\u3164', 'name'],
      ['a Braille blank (U+2800)', '\u2800\u2800', 'name'],
      ['variation selectors', '\ufe0f\ufe0e', 'name'],
      ['tag characters (U+E0041...)', '\u{e0041}\u{e0042}', 'name'],
      ['white space and a zero-width space, as a description', ' \u200b\n', 'description'],
    ])(
      'answers 400 VALIDATION_FAILED for text of invisible characters only: %s',
      async (_label, text, field) => {
        const body = field === 'name' ? { name: text } : { name: 'Visible', description: text };
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send(body)
          .expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: `${field} must contain a visible character, not only white space or invisible characters`,
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    it.each([
      ['a right-to-left override (U+202E)', 'abc\u202egpj.exe', 'name'],
      ['a left-to-right embedding (U+202A)', '\u202adog\u202c', 'name'],
      ['an isolate (U+2066...U+2069)', '\u2066dog\u2069', 'name'],
      ['a left-to-right mark (U+200E)', 'dog\u200e', 'name'],
      ['a right-to-left mark (U+200F)', '\u200fdog', 'name'],
      ['a right-to-left override, in a description', 'see \u202etxt.exe', 'description'],
      ['a first-strong isolate, in a description', 'x \u2068y\u2069', 'description'],
    ])(
      'answers 400 VALIDATION_FAILED for bidirectional formatting characters: %s',
      async (_label, text, field) => {
        const body = field === 'name' ? { name: text } : { name: 'Bidi', description: text };
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send(body)
          .expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: expect.stringMatching(new RegExp(`^${field} must not contain bidirectional`)),
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    it('accepts joiners inside a name and right-to-left marks in a description', async () => {
      const name =
        'Family \u{1f468}\u200d\u{1f469}\u200d\u{1f467} \u0645\u06cc\u200c\u062e\u0648\u0627\u0645';
      const description = '\u05db\u05dc\u05d1\u05d9\u05dd 3\u200f';
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name, description })
        .expect(201);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({ id: expect.any(Number), name, description });
    });

    it.each([
      [{}, 'name'],
      [{ description: 'no name' }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: ' \t\n ' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: `  ${'y'.repeat(65)}  ` }, 'name'],
      [{ name: 5 }, 'name'],
      [{ name: null }, 'name'],
      [{ name: true }, 'name'],
      [{ name: ['dog'] }, 'name'],
      [{ name: { en: 'dog' } }, 'name'],
      [{ name: 'Ok1', description: 'z'.repeat(501) }, 'description'],
      [{ name: 'Ok2', description: 'nul\u0000inside' }, 'description'],
      [{ name: 'Ok3', description: null }, 'description'],
      [{ name: 'Ok4', description: 42 }, 'description'],
      [{ name: 'Ok5', description: ['a'] }, 'description'],
      [{ name: 'Ok6', colour: 'brown' }, 'colour'],
      [{ name: 'Ok7', id: 5 }, 'id'],
    ])('answers 400 VALIDATION_FAILED naming the field for %j', async (body, field) => {
      const before = await countRows(t.db, 'categories');
      const res = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send(body)
        .expect(400);
      t.spec.check('createCategory', res);
      expect(res.body).toEqual({
        code: 'VALIDATION_FAILED',
        message: namesField(field),
        status: 400,
      });
      expect(await countRows(t.db, 'categories')).toBe(before);
    });

    it.each([
      ['NUL (U+0000) inside', 'Nul\u0000Byte'],
      ['NUL (U+0000) alone', '\u0000'],
      ['BEL (U+0007)', 'Bell\u0007Bird'],
      ['a tab inside', 'Tab\tInside'],
      ['a line feed inside', 'Line\nBreak'],
      ['ESC (U+001B)', 'Esc\u001bape'],
      ['DEL (U+007F)', 'Delete\u007f'],
      ['NEL (U+0085, a C1 control)', 'Next\u0085Line'],
      ['a line separator (U+2028)', 'Line\u2028Separator'],
      ['a paragraph separator (U+2029)', 'Paragraph\u2029Separator'],
    ])(
      'answers 400 VALIDATION_FAILED naming the field for a name with a control character or line break: %s',
      async (_label, name) => {
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name })
          .expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: namesField('name'),
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    it.each([
      ['{"name": "\\ud800"}', 'name'],
      ['{"name": "\\udc00abc"}', 'name'],
      ['{"name": "Snake \\ud83d"}', 'name'],
      ['{"name": "Ok8", "description": "half \\ud83d of a pair"}', 'description'],
    ])(
      'answers 400 VALIDATION_FAILED naming the field for an unpaired surrogate in %s',
      async (body, field) => {
        const before = await countRows(t.db, 'categories');
        const res = await postRaw(body).expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: namesField(field),
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    // "❤️" is U+2764 U+FE0F: two characters, as PostgreSQL's varchar counts them.
    it.each([
      ['name', '63 letters and "❤️"', { name: `${'h'.repeat(63)}❤️` }],
      ['name', '64 letters and U+FE0F', { name: `${'h'.repeat(64)}\ufe0f` }],
      ['description', '499 letters and "❤️"', { name: 'Ok9', description: `${'h'.repeat(499)}❤️` }],
    ])(
      'refuses a %s of %s (one character too many) with 400 naming the field',
      async (field, _label, body) => {
        const before = await countRows(t.db, 'categories');
        const res = await t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send(body)
          .expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: namesField(field),
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );

    it.each(['[]', '[{"name": "Array"}]', '"Parrot"', '42', 'true', 'null'])(
      'answers 400 VALIDATION_FAILED for the JSON body %s, which is not an object',
      async (body) => {
        const before = await countRows(t.db, 'categories');
        const res = await postRaw(body).expect(400);
        t.spec.check('createCategory', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: expect.any(String),
          status: 400,
        });
        expect(await countRows(t.db, 'categories')).toBe(before);
      },
    );
  });

  describe('concurrency', () => {
    it('two concurrent creates of one name: exactly one 201 and one 409, never a 500', async () => {
      for (let round = 0; round < 8; round++) {
        const name = `Racer ${round}`;
        const spelled = round % 2 === 0 ? [name, name] : [name, name.toUpperCase()];
        const responses = await Promise.all(
          spelled.map((spelling) =>
            t.http.post('/v1/categories').set('Authorization', t.auth).send({ name: spelling }),
          ),
        );
        for (const res of responses) t.spec.check('createCategory', res);
        expect(responses.map((res) => res.status).sort()).toEqual([201, 409]);
        const conflict = responses.find((res) => res.status === 409);
        expect(conflict?.body.code).toBe('CATEGORY_EXISTS');
        const winner = responses.find((res) => res.status === 201);
        expect(await countCategoriesNamed(t.db, name)).toBe(1);
        expect((await categoryRow(t.db, winner?.body.id))?.name).toBe(winner?.body.name);
      }
    });

    it('ten concurrent creates of one name: one 201, nine 409', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.http
            .post('/v1/categories')
            .set('Authorization', t.auth)
            .send({ name: i % 2 === 0 ? 'Stampede' : ' stampede ' }),
        ),
      );
      for (const res of responses) t.spec.check('createCategory', res);
      const statuses = responses.map((res) => res.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(9);
      expect(await countCategoriesNamed(t.db, 'stampede')).toBe(1);
    });
  });
});
