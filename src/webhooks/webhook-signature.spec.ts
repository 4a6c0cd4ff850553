import { inspect } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { signedHeaders, WebhookSecret } from './webhook-signature.js';

describe('WebhookSecret', () => {
  it('signs as Standard Webhooks verifies', () => {
    const secret = WebhookSecret.generate();
    const body = JSON.stringify({ id: 'evt_1', type: 'order.placed' });
    const headers = signedHeaders([secret], 'evt_1', body);
    expect(new Webhook(secret.reveal()).verify(body, headers)).toEqual(JSON.parse(body));
    expect(secret.reveal()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('signs with two secrets during a rotation, new first: either verifies, a third does not', () => {
    const [next, previous, other] = [1, 2, 3].map(() => WebhookSecret.generate());
    const body = JSON.stringify({ id: 'evt_2', type: 'order.placed' });
    const headers = signedHeaders([next, previous], 'evt_2', body);
    const [first, second] = headers['webhook-signature'].split(' ');
    expect(first).toBe(next.sign('evt_2', Number(headers['webhook-timestamp']), body));
    expect(second).toBe(previous.sign('evt_2', Number(headers['webhook-timestamp']), body));
    for (const secret of [next, previous]) {
      expect(new Webhook(secret.reveal()).verify(body, headers)).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(other.reveal()).verify(body, headers)).toThrow();
  });

  it('never shows itself in logs, JSON or string conversions', () => {
    const secret = WebhookSecret.generate();
    const revealed = secret.reveal();
    const holder = { secret };
    for (const text of [JSON.stringify(holder), inspect(holder), `${String(secret)}`]) {
      expect(text).toContain('[secret]');
      expect(text).not.toContain(revealed.slice(6, 20));
    }
  });
});
