export { terminalAuth, identityOf, type TerminalAuthOptions } from './terminal-auth';
export { requireRole } from './require-role';
