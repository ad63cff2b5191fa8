import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetworkGuard } from '../../src/connectors/network-guard';

/** The guard's fetch (for the MCP SDK's transport) against servers on loopback. */
describe('the network guard’s fetch function', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (req.url === '/breaks') {
        res.write('the first part');
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.end('x'.repeat(5000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const fetchThroughGuard = new NetworkGuard().fetchFunction({ allowPrivateNetwork: true, maxBytes: 1000 });

  it('errors the body when the connection breaks in the middle of it, instead of waiting forever', async () => {
    const response = await fetchThroughGuard(`${url}/breaks`);
    const outcome = await Promise.race([
      response.text().then(
        () => 'read to the end',
        () => 'errored',
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
    ]);
    expect(outcome).toBe('errored');
  });

  it('errors a body larger than maxBytes as it streams in', async () => {
    const response = await fetchThroughGuard(`${url}/large`);
    await expect(response.text()).rejects.toThrow();
  });
});
