import type { Router } from 'express';
import { OPERATIONS, UpsertCustomerRequest } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { customerIdParam, parseBody } from '../http/validate';
import { deleteCustomer, readBalance, readHash, upsertCustomer } from '../operations/customers';

export function customerRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.upsertCustomer, (req, account) => upsertCustomer(ctx, account, parseBody(UpsertCustomerRequest, req)));
  mountOperation(router, ctx, OPERATIONS.balance, (req, account) => readBalance(ctx, account, customerIdParam(req)));
  mountOperation(router, ctx, OPERATIONS.hash, (req, account) => readHash(account, customerIdParam(req)));
  mountOperation(router, ctx, OPERATIONS.deleteCustomer, (req, account) => deleteCustomer(account, customerIdParam(req)));
  mountOperation(router, ctx, OPERATIONS.deleteCustomerPost, (req, account) => deleteCustomer(account, customerIdParam(req)));
}
