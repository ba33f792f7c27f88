import http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import express from 'express';
import { API_PREFIX } from '../../src/contract';
import { reportReady } from '../lib/processes';

/**
 * Scenario 1, the floor: the cheapest possible BFF. Express parses the JSON
 * body and axios forwards it over keep-alive connections (as many sockets as
 * the real client allows); no auth, validation, Redis or logging.
 */
const upstream = process.env.BENCH_UPSTREAM_URL;
if (!upstream) throw new Error('BENCH_UPSTREAM_URL is required');
const client = axios.create({
  baseURL: upstream + API_PREFIX,
  httpAgent: new http.Agent({ keepAlive: true, maxSockets: 32, maxFreeSockets: 16 }),
  proxy: false,
  headers: { apikey: 'stub-apikey', secretkey: 'stub-secret' },
});

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());
app.post('/pos/v1/payments', async (req, res) => {
  try {
    // Scenario 7 names each request; passed on so the stub can record the call (scenario 1 sends none).
    const requestId = req.headers['x-request-id'];
    const upstreamAnswer = await client.post('/payments', req.body, typeof requestId === 'string' ? { headers: { 'X-Request-Id': requestId } } : undefined);
    res.status(201).json(upstreamAnswer.data);
  } catch {
    res.status(502).json({ code: 'upstream_failed' });
  }
});

const server = app.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
