import { loadConfig } from '../config/app-config.js';
import { deprecationHeaders, petDeprecationHeaders, successorBase } from './pets-deprecation.js';

describe('deprecation headers of GET /pets/{petId}', () => {
  it('follow RFC 9745 (Deprecation), RFC 8594 (Sunset) and link the changelog', () => {
    const config = loadConfig({
      PETS_DEPRECATED_AT: '2026-11-01T00:00:00Z',
      PETS_SUNSET_AT: '2027-05-01T12:30:00Z',
      CHANGELOG_URL: 'https://docs.example.test/changelog',
    });
    expect(deprecationHeaders(config)).toEqual({
      Deprecation: '@1793491200',
      Sunset: 'Sat, 01 May 2027 12:30:00 GMT',
      Link: '<https://docs.example.test/changelog>; rel="deprecation"; type="text/html"',
    });
  });
});

describe('the successor of GET /v1/pets/{petId}', () => {
  it('is relative by default, like the default changelog link', () => {
    expect(successorBase(loadConfig({}))).toBe('/v2/pets/');
  });

  it('is absolute under PUBLIC_BASE_URL, its trailing version left out', () => {
    expect(successorBase(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.test/v1/' }))).toBe(
      'https://api.example.test/v2/pets/',
    );
  });
});

describe('the deprecation headers of one answer', () => {
  const headersFor = petDeprecationHeaders(
    loadConfig({
      PETS_DEPRECATED_AT: '2026-11-01T00:00:00Z',
      PETS_SUNSET_AT: '2027-05-01T12:30:00Z',
      CHANGELOG_URL: 'https://docs.example.test/changelog',
    }),
  );

  it('name the successor in v2 when the path names a pet id', () => {
    expect(headersFor('9223372036854775807')).toEqual([
      ['Deprecation', '@1793491200'],
      ['Sunset', 'Sat, 01 May 2027 12:30:00 GMT'],
      [
        'Link',
        '<https://docs.example.test/changelog>; rel="deprecation"; type="text/html", </v2/pets/9223372036854775807>; rel="successor-version"',
      ],
    ]);
  });

  it.each([undefined, 'abc', '0', '007', '9223372036854775808', 12])(
    'link only the changelog when the path names no pet id (%p)',
    (petId) => {
      expect(headersFor(petId)).toEqual([
        ['Deprecation', '@1793491200'],
        ['Sunset', 'Sat, 01 May 2027 12:30:00 GMT'],
        ['Link', '<https://docs.example.test/changelog>; rel="deprecation"; type="text/html"'],
      ]);
    },
  );
});
