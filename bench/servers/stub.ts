import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../../src/contract';
import { reportReady } from '../lib/processes';

/**
 * The fast upstream of scenarios 1-3: plain node:http, canned v4.0 answers, no
 * validation and no state beyond a counter. Its cost is the same for the floor
 * and the BFF, so the difference between them is the BFF's own.
 */
const PAYMENT = JSON.stringify({
  customerId: 'bench-customer',
  redeemedPoints: 100,
  rewardedPoints: 80,
  paymentDetails: [
    { serviceId: 'sku-1', decimalPoints: 50, points: 50 },
    { serviceId: 'sku-2', decimalPoints: 30, points: 30 },
  ],
});
const RELEASED = JSON.stringify({ success: true, message: 'Hold released' });
const NOT_FOUND = JSON.stringify({ code: 4004, type: 'NotFound', message: 'No such route on the bench stub', requestId: 'stub' });
const HOLD_PATH = `${API_PREFIX}/transactions/hold`;
const HOLD_MINUTES = 10;
let holds = 0;

function send(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = req.url ?? '';
  if (req.method === 'POST' && url === `${API_PREFIX}/payments`) return send(res, 200, PAYMENT);
  if (req.method === 'POST' && url === HOLD_PATH) {
    holds += 1;
    return send(res, 200, JSON.stringify({ customerId: 'bench-customer', holdAmount: 10, holdEquivalentPoints: 100, holdReference: `hold_${process.pid}_${holds}` }));
  }
  if (url.startsWith(`${HOLD_PATH}/`)) {
    if (req.method === 'DELETE') return send(res, 200, RELEASED);
    if (req.method === 'GET') {
      const holdReference = decodeURIComponent(url.slice(HOLD_PATH.length + 1));
      const dateToExpire = new Date(Date.now() + HOLD_MINUTES * 60_000).toISOString();
      return send(res, 200, JSON.stringify({ holdReference, customerId: 'bench-customer', holdAmount: 10, holdEquivalentPoints: 100, state: 'active', dateToExpire }));
    }
  }
  send(res, 404, NOT_FOUND);
}

const server = http.createServer((req, res) => {
  // Read the whole body first, as a real service would, then answer.
  req.on('data', () => undefined);
  req.on('end', () => answer(req, res));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
