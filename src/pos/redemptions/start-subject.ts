import { parseQr } from './proof';
import type { StartRedemptionBody } from './schemas';
import type { AuditSubject } from '../audit/types';

/** The customer a start names; a QR code that does not parse names nobody (the start is refused for it). */
export function startSubject(body: StartRedemptionBody): AuditSubject {
  if (body.customerId !== undefined || body.qr === undefined) return { customerId: body.customerId };
  try {
    return { customerId: parseQr(body.qr).customerId };
  } catch {
    return {};
  }
}
