import fs from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * A shop's orders API on loopback, for the actions' tests: it records every request
 * and answers from a few orders; some paths misbehave on purpose (a 1 MB body, a
 * 30 s sleep, a 503 every time, a card number in the data).
 */
export interface OrdersApi {
  baseURL: string;
  requests: RecordedApiRequest[];
  /** Writes the API's OpenAPI document (YAML, first server = this API) into dir; returns its file name. */
  writeOpenApi(dir: string, fileName?: string): Promise<string>;
  close(): Promise<void>;
}

export interface RecordedApiRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
}

export const API_ORDERS: Record<string, { orderId: string; customerId: string; status: string; total: string }> = {
  'BK-1001': { orderId: 'BK-1001', customerId: 'ada@books.example', status: 'shipped', total: '42.00' },
  'BK-1002': { orderId: 'BK-1002', customerId: 'grace@books.example', status: 'processing', total: '18.50' },
};

/** What a status route adds to an order: when and with whom it went (an order not shipped has nothing). */
export const API_SHIPMENTS: Record<string, { shipped_at: string; carrier: string }> = {
  'BK-1001': { shipped_at: '2026-11-03', carrier: 'DHL' },
};

/** One megabyte of order JSON. */
export function oneMegabyteOfOrders(): string {
  const orders: string[] = [];
  for (let size = 0, i = 0; size < 1024 * 1024; i++) {
    const order = JSON.stringify({ orderId: `BK-${100000 + i}`, status: 'delivered', title: `A book about the sea, volume ${i}`, total: '12.00' });
    orders.push(order);
    size += order.length + 1;
  }
  return `{"orders":[${orders.join(',')}]}`;
}

/** `token`: every path but the OpenAPI document answers 401 without `Authorization: Bearer <token>`, as an API key refused. */
export async function startOrdersApi(options: { token?: string } = {}): Promise<OrdersApi> {
  const requests: RecordedApiRequest[] = [];
  let baseURL = '';
  const big = oneMegabyteOfOrders();
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (options.token !== undefined && url.pathname !== '/openapi.yaml' && req.headers.authorization !== `Bearer ${options.token}`) return json(401, { error: 'invalid API key' });
    const mine = url.pathname.match(/^\/customers\/([^/]+)\/orders$/);
    const one = url.pathname.match(/^\/orders\/([^/]+)$/);
    const mineOne = url.pathname.match(/^\/customers\/([^/]+)\/orders\/([^/]+)$/);
    // An order's status (snake_case dates, as many shops' APIs write them): the signed-in customer's, or a guest's with the order's e-mail.
    const myStatus = url.pathname.match(/^\/customers\/([^/]+)\/orders\/([^/]+)\/status$/);
    const guestStatus = url.pathname.match(/^\/orders\/([^/]+)\/status$/);
    if (req.method === 'GET' && (myStatus || guestStatus)) {
      const order = API_ORDERS[decodeURIComponent((myStatus ? myStatus[2] : guestStatus![1])!)];
      const owner = myStatus ? decodeURIComponent(myStatus[1]!) : (url.searchParams.get('email') ?? '').trim().toLowerCase();
      if (!order || order.customerId !== owner) return json(404, { error: 'not found' });
      return json(200, { orderId: order.orderId, status: order.status, ...API_SHIPMENTS[order.orderId] });
    }
    if (req.method === 'GET' && mine) {
      const customer = decodeURIComponent(mine[1]!);
      return json(200, { orders: Object.values(API_ORDERS).filter((o) => o.customerId === customer) });
    }
    if (req.method === 'GET' && mineOne) {
      // One order of one customer: another customer's order is "not found", as a shop's API answers.
      const order = API_ORDERS[decodeURIComponent(mineOne[2]!)];
      return order && order.customerId === decodeURIComponent(mineOne[1]!) ? json(200, order) : json(404, { error: 'not found' });
    }
    if (req.method === 'GET' && one) {
      const order = API_ORDERS[decodeURIComponent(one[1]!)];
      return order ? json(200, order) : json(404, { error: 'not found' });
    }
    if (req.method === 'GET' && url.pathname === '/export') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(big);
    }
    if (req.method === 'GET' && url.pathname === '/slow') {
      const timer = setTimeout(() => json(200, { late: true }), 30_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/openapi.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      return res.end(ordersOpenApi(baseURL));
    }
    if (req.method === 'GET' && url.pathname === '/flaky') return json(503, { error: 'busy' });
    if (req.method === 'GET' && url.pathname === '/payment') return json(200, { card: '4242 4242 4242 4242', holder: 'Ada' });
    if (req.method === 'POST' && url.pathname.endsWith('/cancel')) return json(200, { cancelled: true });
    if (req.method === 'POST' && (url.pathname === '/tickets' || /^\/customers\/[^/]+\/tickets$/.test(url.pathname))) return json(201, { ticket: 'T-1' });
    json(404, { error: 'no such path' });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseURL,
    requests,
    async writeOpenApi(dir, fileName = 'orders-api.yaml') {
      await fs.writeFile(path.join(dir, fileName), ordersOpenApi(baseURL));
      return fileName;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The orders API described in OpenAPI 3.0, with a $ref'd schema and parameter. */
export function ordersOpenApi(serverUrl: string): string {
  return `openapi: 3.0.3
info: { title: Bookshop orders, version: '1' }
servers:
  - url: ${serverUrl}
paths:
  /customers/{customerId}/orders:
    get:
      operationId: listMyOrders
      summary: List the customer's orders
      description: Every order of the signed-in customer, newest first, with status and total.
      parameters:
        - $ref: '#/components/parameters/CustomerId'
        - name: status
          in: query
          description: Only orders in this status.
          schema: { type: string, enum: [processing, shipped, delivered] }
      responses:
        '200': { description: The orders, content: { application/json: { schema: { $ref: '#/components/schemas/OrderList' } } } }
  /customers/{customerId}/orders/{orderId}:
    get:
      operationId: getMyOrder
      summary: One order of the signed-in customer, by its number
      parameters:
        - $ref: '#/components/parameters/CustomerId'
        - name: orderId
          in: path
          required: true
          description: The order number, like BK-1001.
          schema: { type: string, pattern: '^BK-\\d{4}$' }
      responses:
        '200': { description: The order }
        '404': { description: No such order for this customer }
  /customers/{customerId}/orders/{orderId}/status:
    get:
      operationId: getMyOrderStatus
      summary: Where one order of the signed-in customer is, by its number
      parameters:
        - $ref: '#/components/parameters/CustomerId'
        - { name: orderId, in: path, required: true, description: 'The order number, like BK-1001.', schema: { type: string, pattern: '^BK-\\d{4}$' } }
      responses:
        '200': { description: 'The status, and when and with whom it was shipped' }
        '404': { description: No such order for this customer }
  /orders/{orderId}/status:
    get:
      operationId: getOrderStatus
      summary: Where an order is, for a guest who gives the e-mail address on it
      parameters:
        - { name: orderId, in: path, required: true, description: 'The order number, like BK-1001.', schema: { type: string, pattern: '^BK-\\d{4}$' } }
        - { name: email, in: query, required: true, description: The e-mail address the order was placed with., schema: { type: string, format: email } }
      responses:
        '200': { description: 'The status, and when and with whom it was shipped' }
        '404': { description: No such order with this e-mail address }
  /orders/{orderId}:
    get:
      operationId: getOrder
      summary: Get one order by its number
      parameters:
        - name: orderId
          in: path
          required: true
          description: The order number, like BK-1001.
          schema: { type: string }
      responses:
        '200': { description: The order }
  /orders/{orderId}/cancel:
    post:
      operationId: cancelOrder
      summary: Cancel an order
      parameters:
        - { name: orderId, in: path, required: true, schema: { type: string } }
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                reason: { type: string }
                customerId: { type: string }
      responses:
        '200': { description: Cancelled }
  /customers/{customerId}/tickets:
    post:
      operationId: openTicket
      summary: Open a support ticket for the customer
      parameters:
        - $ref: '#/components/parameters/CustomerId'
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [subject]
              properties:
                subject: { type: string }
                customerId: { type: string }
      responses:
        '201': { description: Opened }
  /tickets:
    post:
      operationId: openTicketFor
      summary: Open a support ticket, the customer named in the body
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                subject: { type: string }
                customer:
                  type: object
                  required: [id]
                  properties:
                    id: { type: string }
                    name: { type: string }
      responses:
        '201': { description: Opened }
  /export:
    get:
      operationId: exportOrders
      summary: Every order ever placed, as one large list
      responses:
        '200': { description: All orders }
  /slow:
    get:
      operationId: slowReport
      summary: A report that takes long
      responses:
        '200': { description: The report }
  /flaky:
    get:
      operationId: deliveryEstimate
      summary: The delivery estimate for new orders
      responses:
        '200': { description: The estimate }
  /payment:
    get:
      operationId: paymentMethod
      summary: The card on file
      responses:
        '200': { description: The card }
components:
  parameters:
    CustomerId:
      name: customerId
      in: path
      required: true
      description: The customer's id.
      schema: { type: string }
  schemas:
    Order:
      type: object
      properties:
        orderId: { type: string }
        status: { type: string, nullable: true }
    OrderList:
      type: object
      properties:
        orders: { type: array, items: { $ref: '#/components/schemas/Order' } }
`;
}
