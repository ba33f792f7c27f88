import type { Router } from 'express';
import { EventRequest, OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody } from '../http/validate';
import { recordEvents } from '../operations/events';

export function eventRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.events, (req, account) => recordEvents(ctx, account, parseBody(EventRequest, req)));
}
