import { z } from 'zod';
import { routesGiven, TILL } from '../http/route';
import { customerHash, customerSummary, deleteCustomer, registerCustomer } from './operations';
import { customerExamples } from './examples';
import * as cs from './schemas';

import type { CustomerDeletionDeps, CustomerDeps } from './operations';

const route = routesGiven<CustomerDeps>();
const deletion = routesGiven<CustomerDeletionDeps>();

const customerId = (description: string, example: string) => z.object({ id: cs.CustomerIdParam.shape.id.meta({ description, example }) });
/** Customer `nour-1001` signs up at the till, then her mobile is added on a later visit. */
const signUp = { displayName: 'Nour Hassan', firstName: 'Nour', lastName: 'Hassan', email: 'nour.hassan@example.com', preferredLanguage: 'ar' };

const deleted = (operationId: string, method: 'delete' | 'post', path: string, summary: string) =>
  deletion({
    method,
    path,
    operationId,
    tag: 'Customers',
    roles: ['manager'],
    summary,
    description:
      'Deletes the customer in the loyalty service, then erases what this BFF keeps about them: OTP tickets and kept answers naming them ' +
      'are dropped; their redemptions, coupon locks, sale and refund records, finished outbox entries and audit entries are kept for ' +
      "the money's reconciliation under a stable pseudonym instead of their id, without contact details. Refused with 409 " +
      '`customer_has_open_work` (`open` names each item; nothing is deleted) while a hold or coupon lock is open, a sale or refund is being ' +
      'recorded, or a write of theirs waits in the outbox or as a dead letter. A 404 `customer_not_found` from the loyalty service erases here too.',
    params: customerId('The loyalty customer id', 'alice'),
    success: { status: 200, description: 'Deleted and erased', schema: cs.CustomerDeletedSchema, example: customerExamples.customerDeleted },
    callsLoyalty: true,
    codes: ['customer_not_found', 'customer_has_open_work'],
    handle: (deps, ctx, { params }) => deleteCustomer(deps, ctx, params.id),
  });

/** Customers at the till: look one up, sign one up, the kiosk's QR hash, and deletion (managers). */
export const CUSTOMER_ROUTES = [
  route({
    method: 'get',
    path: '/customers/:id',
    operationId: 'getCustomerSummary',
    tag: 'Customers',
    roles: TILL,
    summary: "A customer's points, tier and coupons",
    description:
      'Balance, tier progress and coupons are read in parallel. The balance is required; tier and coupons are `null` and listed in `unavailable` when they could not be read.',
    params: customerId('The loyalty customer id', 'alice'),
    query: cs.TierQuery,
    success: { status: 200, description: 'The summary', schema: cs.CustomerSummarySchema, example: customerExamples.customerSummary },
    callsLoyalty: true,
    codes: ['customer_not_found'],
    handle: (deps, ctx, { params, query }) => customerSummary(deps, ctx, params.id, query.lang),
  }),
  route({
    method: 'put',
    path: '/customers/:id',
    operationId: 'registerCustomer',
    tag: 'Customers',
    roles: TILL,
    summary: 'Register a customer at the till, or update their profile',
    description:
      'Get-or-create: an unknown customer id gets a loyalty profile; a known one has its profile updated with the fields sent ' +
      '(fields not sent keep their values). Safe to send again: it never makes a second profile. ' +
      'When the account merges channels by email (or mobile), send that field: the loyalty service joins this id to the profile that already has it, ' +
      'and answers 422 `channel_field_required` naming the field when it is missing. ' +
      'Then `GET /customers/{id}` shows the balance.',
    params: customerId('The loyalty customer id (the same in every channel when possible)', 'nour-1001'),
    body: {
      schema: cs.RegisterCustomerRequest,
      examples: {
        signUp: { summary: 'A new customer signs up at checkout', value: signUp },
        addMobile: { summary: 'On a later visit, the mobile is added (the rest stays)', value: { mobile: '+201001234567' } },
      },
    },
    success: {
      status: 200,
      description: 'The profile was created or updated',
      schema: cs.CustomerRegisteredSchema,
      example: { customerId: 'nour-1001', outcome: 'created', loyaltyId: '81234', profile: signUp },
    },
    callsLoyalty: true,
    codes: ['channel_field_required'],
    handle: (deps, ctx, { params, body }) => registerCustomer(deps, ctx, params.id, body),
  }),
  route({
    method: 'get',
    path: '/customers/:id/hash',
    operationId: 'getCustomerHash',
    tag: 'Customers',
    roles: ['kiosk'],
    summary: 'The rotating hash to show as a QR code (kiosk)',
    params: customerId('The loyalty customer id', 'alice'),
    success: { status: 200, description: 'The current hash and the QR payload', schema: cs.CustomerHashSchema, example: customerExamples.customerHash },
    callsLoyalty: true,
    codes: ['kiosk_qr_off', 'customer_not_found'],
    handle: (deps, ctx, { params }) => customerHash(deps, ctx, params.id),
  }),
  deleted('deleteCustomer', 'delete', '/customers/:id', 'Delete a customer and their data (manager)'),
  deleted('deleteCustomerPost', 'post', '/customers/:id/delete', 'Delete a customer (POST form, for tills that cannot send DELETE)'),
];
