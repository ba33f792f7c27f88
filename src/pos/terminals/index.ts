export * from './types';
export { TOKEN_PREFIX, TOKEN_PATTERN, generateToken, hashToken } from './tokens';
export { type TerminalsFile, readTerminalsFile, loadTerminalsFile, writeTerminalsFile } from './file';
export {
  addTerminal,
  listTerminals,
  listStores,
  revokeTerminal,
  addStore,
  ensureDemoSetup,
  DEMO_STORES,
  type NewTerminal,
  type TerminalListing,
  type TerminalStatus,
  type DemoToken,
} from './operations';
export { TerminalRegistry, type TerminalRegistryOptions, type TerminalsFileState, type Verification, type AuthenticationFailure } from './registry';
