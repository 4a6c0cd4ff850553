import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the running service, applied as main.js's first import, before Nest, Express
 * or pg load. Not in NODE_OPTIONS: Node refuses V8's own flags there.
 *
 * --no-allocation-site-pretenuring: under load, V8 began to allocate some per-request objects
 * straight in the old generation. Once dead, those still held the request's younger objects
 * (the rows, the answer) through every young-generation collection until the next full one, so
 * each collection promoted about 3 MB that nobody used: four to five times the collector's time,
 * and a heap some 100 MB larger (docs/performance.md, "Objects kept alive by dead ones").
 */
setFlagsFromString('--no-allocation-site-pretenuring');
