import type { Router } from 'express';
import { OPERATIONS, OtpRequest } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody } from '../http/validate';
import { sendOtp } from '../operations/otp';

export function otpRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.otp, (req, account) => sendOtp(ctx, account, parseBody(OtpRequest, req)));
}
