import { isPrivateAddress } from './webhook-target.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '224.0.0.1',
    'not an address',
    // IPv4-compatible, in every spelling
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    // IPv4-mapped and SIIT
    '::ffff:10.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '0:0:0:0:0:ffff:c0a8:101',
    // NAT64, well-known and local-use (RFC 6052 /48, /56, /64, /96 layouts)
    '64:ff9b::7f00:1',
    '64:ff9b::10.1.2.3',
    '64:ff9b:1:7f00:1:100::',
    '64:ff9b:1:7f:0:1:100::',
    '64:ff9b:1::7f:0:1:0:0',
    '64:ff9b:1::a9fe:a9fe',
    // 6to4 and Teredo (client address inverted)
    '2002:7f00:1::1',
    '2002:c0a8:101::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001::ffff:80ff:fffe',
    'FE80::1',
    'fe80::1%eth0',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '::808:808',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
