import { nodeAddress } from '#agent/runtime/node-address';

describe('the address a node registers with', () => {
  it('is --node-ip when given', async () => {
    expect(await nodeAddress({ nodeIp: '10.0.0.7', executor: 'ssh', ssh: { host: 'fbsd.example' } })).toBe('10.0.0.7');
  });

  it('is the SSH host when it is an address', async () => {
    expect(await nodeAddress({ executor: 'ssh', ssh: { host: '192.0.2.10' } })).toBe('192.0.2.10');
  });

  it('resolves an SSH host name, because registration accepts only IP addresses', async () => {
    expect(await nodeAddress({ executor: 'ssh', ssh: { host: 'localhost' } })).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('is an IPv4 address of this machine with the local executor', async () => {
    expect(await nodeAddress({ executor: 'local', ssh: {} })).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
});
