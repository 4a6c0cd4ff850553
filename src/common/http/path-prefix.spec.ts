import { isUnderPath } from './path-prefix.js';

describe('isUnderPath', () => {
  it('takes the root itself and what is under it, in any case', () => {
    for (const path of ['/docs', '/docs/', '/docs/index.html', '/DOCS', '/Docs/x/y']) {
      expect(isUnderPath(path, '/docs')).toBe(true);
    }
  });

  it('matches whole segments only', () => {
    for (const path of ['/doc', '/docsx', '/docs-json', '/v1/docs', '', '/']) {
      expect(isUnderPath(path, '/docs')).toBe(false);
    }
  });
});
