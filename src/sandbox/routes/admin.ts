import type { Router } from 'express';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import { adminAccount, adminAccountAt } from '../http/admin-auth';
import { customerIdParam, pathParam } from '../http/validate';
import {
  advanceClock,
  forgetTransaction,
  readAccount,
  readActivity,
  seedCustomersInBulk,
  readClock,
  readOtp,
  updateAccount,
  resetSandbox,
  seedCustomer,
} from '../operations/admin';

function jsonObject(body: unknown): unknown {
  if (body === undefined) throw loyaltyErrors.invalidPayload('The request body must be JSON, sent with Content-Type: application/json');
  return body;
}

/** Admin API for developers and tests, below /_sandbox; every route takes one account's apikey and secretkey (admin-auth.ts). */
export function adminRoutes(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.post('/reset', (req, res) => {
    adminAccount(store, req, { withSeed: true });
    res.json(resetSandbox(ctx));
  });

  router.post('/customers', (req, res) => {
    const account = adminAccount(store, req);
    const result = seedCustomer(ctx, account, jsonObject(req.body));
    res.status(result.created ? 201 : 200).json(result.balance);
  });

  router.post('/customers/bulk', (req, res) => {
    const account = adminAccount(store, req);
    res.json(seedCustomersInBulk(ctx, account, jsonObject(req.body)));
  });

  router.get('/customers/:customerId/activity', (req, res) => {
    const account = adminAccount(store, req);
    res.json(readActivity(ctx, account, customerIdParam(req)));
  });

  router.delete('/transactions/:transactionId', (req, res) => {
    const account = adminAccount(store, req);
    res.json(forgetTransaction(account, pathParam(req, 'transactionId')));
  });

  router.get('/accounts/:apikey', (req, res) => {
    const account = adminAccountAt(store, req, pathParam(req, 'apikey'));
    res.json(readAccount(account));
  });

  router.put('/accounts/:apikey', (req, res) => {
    const account = adminAccountAt(store, req, pathParam(req, 'apikey'));
    res.json(updateAccount(ctx, account, jsonObject(req.body)));
  });

  router.get('/clock', (req, res) => {
    adminAccount(store, req);
    res.json(readClock(ctx));
  });

  router.post('/clock/advance', (req, res) => {
    adminAccount(store, req);
    res.json(advanceClock(ctx, jsonObject(req.body)));
  });

  router.get('/otp/:customerId', (req, res) => {
    const account = adminAccount(store, req);
    res.json(readOtp(ctx, account, customerIdParam(req)));
  });
}
