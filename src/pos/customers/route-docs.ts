import { z } from 'zod';
import * as cs from './schemas';
import * as req from '../schemas';
import type { ErrorName } from '../openapi/components';
import type { PosRouteDoc } from '../openapi/routes';

/**
 * The customer sign-up route, as the OpenAPI document describes it (joined to
 * POS_ROUTES), with its examples: customer `nour-1001` signs up at the till,
 * then her mobile is added on a later visit.
 */
const SIGN_UP_ERRORS: ErrorName[] = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'Unprocessable',
  'TooManyRequests',
  'BadGateway',
  'ServiceUnavailable',
];

const signUp = { displayName: 'Nour Hassan', firstName: 'Nour', lastName: 'Hassan', email: 'nour.hassan@example.com', preferredLanguage: 'ar' };

export const CUSTOMER_ROUTES: PosRouteDoc[] = [
  {
    method: 'put',
    path: '/customers/:id',
    operationId: 'registerCustomer',
    tag: 'Customers',
    roles: ['cashier', 'manager'],
    summary: 'Register a customer at the till, or update their profile',
    description:
      'Get-or-create: an unknown customer id gets a loyalty profile; a known one has its profile updated with the fields sent ' +
      '(fields not sent keep their values). Safe to send again: it never makes a second profile. ' +
      'When the account merges channels by email (or mobile), send that field: the loyalty service joins this id to the profile that already has it, ' +
      'and answers 422 `channel_field_required` naming the field when it is missing. ' +
      'Then `GET /customers/{id}` shows the balance.',
    params: z.object({
      id: req.CustomerIdParam.shape.id.meta({ description: 'The loyalty customer id (the same in every channel when possible)', example: 'nour-1001' }),
    }),
    body: {
      schema: cs.RegisterCustomerBody,
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
    errors: SIGN_UP_ERRORS,
  },
];
