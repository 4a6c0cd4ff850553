import { loadConfig } from '../config/app-config.js';
import { deprecationHeaders, successorBase } from './pets-deprecation.js';

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
