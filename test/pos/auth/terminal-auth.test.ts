import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { errorHandler, requestLogger, unknownRoute } from '../../../src/platform/http';
import { createLogger } from '../../../src/platform/logger';
import { identityOf, requireRole, terminalAuth } from '../../../src/pos/auth';
import { renderProblem } from '../../../src/pos/http/problem';
import { addStore, addTerminal, revokeTerminal, TerminalRegistry } from '../../../src/pos/terminals';

const STORE = { id: 'store-a', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-1', name: 'Harbour' } };

let dir: string;
let file: string;
let clock: number;
let lines: string[];
let app: express.Express;
let registry: TerminalRegistry;
const tokens: Record<'cashier' | 'manager' | 'kiosk' | 'revoked', string> = { cashier: '', manager: '', kiosk: '', revoked: '' };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminal-auth-'));
  file = path.join(dir, 'terminals.json');
  addStore(file, STORE);
  for (const role of ['cashier', 'manager', 'kiosk'] as const) {
    tokens[role] = addTerminal(file, { storeId: 'store-a', role, id: `till-${role}` }).token;
  }
  tokens.revoked = addTerminal(file, { storeId: 'store-a', role: 'manager', id: 'till-gone' }).token;
  revokeTerminal(file, 'till-gone');

  clock = 0;
  lines = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', pretty: false, destination });
  registry = new TerminalRegistry(file, { now: () => clock, logger });

  app = express();
  app.use(requestLogger(logger));
  const pos = express.Router();
  pos.use(terminalAuth(registry));
  pos.get('/whoami', (_req, res) => {
    const { terminal, store } = identityOf(res);
    res.json({ terminalId: terminal.id, role: terminal.role, storeId: store.id });
  });
  pos.post('/customers/:id/delete', requireRole('manager'), (_req, res) => res.json({ deleted: true }));
  pos.get('/customers/:id', requireRole('cashier', 'manager'), (_req, res) => res.json({ ok: true }));
  app.use('/pos/v1', pos);
  app.get('/unguarded', requireRole('manager'), (_req, res) => res.json({ reached: true }));
  app.use(unknownRoute);
  app.use(errorHandler(logger, renderProblem));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('terminalAuth', () => {
  it('lets a known terminal in and tells the route who it is', async () => {
    const res = await request(app).get('/pos/v1/whoami').set(bearer(tokens.cashier)).expect(200);
    expect(res.body).toEqual({ terminalId: 'till-cashier', role: 'cashier', storeId: 'store-a' });
    await request(app).get('/pos/v1/whoami').set('authorization', `bearer  ${tokens.kiosk}`).expect(200);
  });

  it('answers 401 missing_token with a Bearer challenge when no token is sent', async () => {
    const res = await request(app).get('/pos/v1/whoami').expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pos"');
    expect(res.body).toMatchObject({ status: 401, code: 'missing_token' });
  });

  it.each([
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['no token', 'Bearer'],
    ['two tokens', 'Bearer a b'],
  ])('answers 401 malformed_authorization for %s', async (_what, header) => {
    const res = await request(app).get('/pos/v1/whoami').set('Authorization', header).expect(401);
    expect(res.body.code).toBe('malformed_authorization');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pos", error="invalid_token"');
  });

  it('answers 401 invalid_token for an unknown and for a revoked token', async () => {
    const wrong = tokens.cashier.slice(0, -2) + (tokens.cashier.endsWith('AA') ? 'BB' : 'AA');
    for (const token of [wrong, tokens.revoked]) {
      const res = await request(app).get('/pos/v1/whoami').set(bearer(token)).expect(401);
      expect(res.body).toMatchObject({ code: 'invalid_token', status: 401 });
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(JSON.stringify(res.body)).not.toContain(token);
    }
  });

  it('refuses a token revoked while the BFF runs, from the next file check on', async () => {
    const { terminal, token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    clock += 1000;
    await request(app).get('/pos/v1/whoami').set(bearer(token)).expect(200);
    revokeTerminal(file, terminal.id);
    clock += 1000;
    await request(app).get('/pos/v1/whoami').set(bearer(token)).expect(401);
  });

  it('logs each refusal as a warning with the source address and reason, never the token', async () => {
    lines.length = 0;
    await request(app).get('/pos/v1/whoami').set(bearer(tokens.revoked)).expect(401);
    const refusal = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'terminal authentication failed');
    expect(refusal).toMatchObject({ level: 40, reason: 'revoked', terminalId: 'till-gone' });
    expect(refusal.remoteAddress).toMatch(/127\.0\.0\.1|::1/);
  });
});

describe('requireRole', () => {
  it('answers 403 role_not_allowed naming the role needed', async () => {
    const res = await request(app).post('/pos/v1/customers/c-1/delete').set(bearer(tokens.cashier)).expect(403);
    expect(res.body).toMatchObject({ code: 'role_not_allowed', requiredRoles: ['manager'], role: 'cashier' });
    expect(res.body.detail).toBe('This route needs a manager terminal; this terminal is a cashier');
    const kiosk = await request(app).get('/pos/v1/customers/c-1').set(bearer(tokens.kiosk)).expect(403);
    expect(kiosk.body.detail).toContain('needs a cashier or manager terminal');
  });

  it('lets an allowed role through', async () => {
    await request(app).post('/pos/v1/customers/c-1/delete').set(bearer(tokens.manager)).expect(200, { deleted: true });
    await request(app).get('/pos/v1/customers/c-1').set(bearer(tokens.cashier)).expect(200);
  });

  it('is a masked 500, not a pass, when mounted without terminalAuth', async () => {
    const res = await request(app).get('/unguarded').expect(500);
    expect(res.body.reached).toBeUndefined();
  });
});

describe('secrets', () => {
  it('never writes any terminal token to the log', () => {
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('');
    for (const token of Object.values(tokens)) {
      expect(all).not.toContain(token);
      expect(all).not.toContain(token.slice(4));
    }
  });
});
