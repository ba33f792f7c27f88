import type { Router } from 'express';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import { adminAccount, requireAnySecret, requireSecretOf } from '../http/admin-auth';
import { customerIdParam, pathParam } from '../http/validate';
import { advanceClock, readAccount, readActivity, seedCustomersInBulk, readClock, readOtp, replaceAccount, resetSandbox, seedCustomer } from '../operations/admin';

function jsonObject(body: unknown): unknown {
  if (body === undefined) throw loyaltyErrors.invalidPayload('The request body must be JSON, sent with Content-Type: application/json');
  return body;
}

/** Admin API for developers and tests, below /_sandbox. */
export function adminRoutes(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.post('/reset', (req, res) => {
    requireAnySecret(store, req, true);
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

  router.get('/accounts/:apikey', (req, res) => {
    const account = store.account(pathParam(req, 'apikey'));
    if (!account) throw loyaltyErrors.notFound('No account has that apikey');
    requireSecretOf(account, req);
    res.json(readAccount(account));
  });

  router.put('/accounts/:apikey', (req, res) => {
    const account = store.account(pathParam(req, 'apikey'));
    if (!account) throw loyaltyErrors.notFound('No account has that apikey');
    requireSecretOf(account, req);
    res.json(replaceAccount(ctx, account, jsonObject(req.body)));
  });

  router.get('/clock', (req, res) => {
    requireAnySecret(store, req);
    res.json(readClock(ctx));
  });

  router.post('/clock/advance', (req, res) => {
    requireAnySecret(store, req);
    res.json(advanceClock(ctx, jsonObject(req.body)));
  });

  router.get('/otp/:customerId', (req, res) => {
    const account = adminAccount(store, req);
    res.json(readOtp(ctx, account, customerIdParam(req)));
  });
}
