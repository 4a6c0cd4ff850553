import { Histogram, Registry } from 'prom-client';
import { RequestHistogram } from './request-histogram.js';

const CONFIG = {
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP server requests',
  labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
};

type Labels = Record<(typeof CONFIG.labelNames)[number], string>;

const OBSERVATIONS: [Labels, number][] = [
  [
    { http_request_method: 'GET', http_route: '/v1/categories', http_response_status_code: '200' },
    0.0031,
  ],
  [
    { http_request_method: 'GET', http_route: '/v1/categories', http_response_status_code: '200' },
    0.005,
  ],
  [
    { http_request_method: 'GET', http_route: '/v1/categories', http_response_status_code: '200' },
    0.26,
  ],
  [
    {
      http_request_method: 'POST',
      http_route: '/v2/store/orders',
      http_response_status_code: '201',
    },
    0.012,
  ],
  [
    { http_request_method: 'GET', http_route: '/v1/pets/:petId', http_response_status_code: '404' },
    11,
  ],
  [{ http_request_method: '_OTHER', http_route: '', http_response_status_code: '499' }, 0],
  [
    {
      http_request_method: 'GET',
      http_route: 'a "quoted" \\ route\n',
      http_response_status_code: '200',
    },
    7.5,
  ],
  [
    { http_request_method: 'GET', http_route: '/v1/categories', http_response_status_code: '200' },
    1e-9,
  ],
];

/** prom-client's Histogram and ours, each alone in a registry, fed the same observations. */
function both(observations: [Labels, number][]) {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({
    ...CONFIG,
    labelNames: [...CONFIG.labelNames],
    registers: [theirs],
  });
  const requestHistogram = new RequestHistogram({ ...CONFIG, registers: [ours] });
  for (const [labels, value] of observations) {
    histogram.observe(labels, value);
    requestHistogram.observe(labels, value);
  }
  return { theirs, ours };
}

describe('RequestHistogram', () => {
  it("is exposed byte for byte as prom-client's Histogram, series in the order they appeared", async () => {
    const { theirs, ours } = both(OBSERVATIONS);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain(
      'http_server_request_duration_seconds_bucket{le="0.005",http_request_method="GET",http_route="/v1/categories",http_response_status_code="200"} 3',
    );
    expect(text).toContain(
      'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/v1/pets/:petId",http_response_status_code="404"} 1',
    );
  });

  it('gives the same JSON as prom-client', async () => {
    const { theirs, ours } = both(OBSERVATIONS);
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('forgets its series when the registry resets its metrics, as prom-client does', async () => {
    const { theirs, ours } = both(OBSERVATIONS);
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).not.toContain('_bucket');
  });

  it('has no series before its first observation, as prom-client has none', async () => {
    const { theirs, ours } = both([]);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
