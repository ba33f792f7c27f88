import type { RequestHandler } from 'express';
import { problem } from '../../platform/problem';
import type { TerminalRole } from '../terminals/types';
import { identityOf } from './terminal-auth';

const list = (roles: readonly TerminalRole[]) => (roles.length === 1 ? roles[0] : `${roles.slice(0, -1).join(', ')} or ${roles[roles.length - 1]}`);

/** 403 unless the authenticated terminal has one of `roles`. Mount after terminalAuth. */
export function requireRole(...roles: TerminalRole[]): RequestHandler {
  if (roles.length === 0) throw new Error('requireRole needs at least one role');
  return (_req, res, next) => {
    const { terminal } = identityOf(res);
    if (roles.includes(terminal.role)) return next();
    next(
      problem('role_not_allowed', `This route needs a ${list(roles)} terminal; this terminal is a ${terminal.role}`, {
        extra: { requiredRoles: roles, role: terminal.role },
      }),
    );
  };
}
