import type { Router } from 'express';
import type { SandboxContext } from '../context';
import { adminRoutes } from './admin';
import { batchOrderRoutes } from './batch-orders';
import { couponLockRoutes } from './coupon-locks';
import { couponRoutes } from './coupons';
import { customerRoutes } from './customers';
import { eventRoutes } from './events';
import { faultRoutes } from './faults';
import { holdRoutes } from './holds';
import { orderRoutes } from './orders';
import { otpRoutes } from './otp';
import { paymentRoutes } from './payments';
import { refundRoutes } from './refunds';
import { tierProgressRoutes } from './tier-progress';

/** Mounts a group of v4.0 operations on the router below API_PREFIX. */
export type RouteModule = (router: Router, ctx: SandboxContext) => void;

/** Every v4.0 route group; one file per resource. Add new resources here. */
export const API_ROUTES: RouteModule[] = [
  holdRoutes,
  otpRoutes,
  paymentRoutes,
  refundRoutes,
  customerRoutes,
  eventRoutes,
  couponRoutes,
  tierProgressRoutes,
  batchOrderRoutes,
  couponLockRoutes,
  orderRoutes,
];

/** Admin route groups below `/_sandbox`. */
export const ADMIN_ROUTES: RouteModule[] = [adminRoutes, faultRoutes];
