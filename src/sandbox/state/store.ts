import type { AccountSettings, SeedCustomer } from '../accounts';
import type { SandboxClock } from '../clock';
import { AccountLedger } from './ledger';

/** One configured account: its current settings and its state. */
export interface AccountEntry {
  settings: AccountSettings;
  ledger: AccountLedger;
}

/**
 * Every account of the sandbox, keyed by API key. `reset()` puts settings and
 * state back to the configured seed.
 */
export class SandboxStore {
  private readonly accounts = new Map<string, AccountEntry>();
  /** Hooks other parts (e.g. batch jobs, faults) register to be cleared on reset. */
  private readonly resetHooks: (() => void)[] = [];

  constructor(
    private readonly seed: readonly AccountSettings[],
    private readonly clock: SandboxClock,
  ) {
    this.load();
  }

  private load(): void {
    this.accounts.clear();
    for (const settings of this.seed) {
      const entry: AccountEntry = { settings: structuredClone(settings), ledger: new AccountLedger() };
      this.accounts.set(settings.apiKey, entry);
      for (const c of settings.seedCustomers) this.seedCustomer(entry, c);
    }
  }

  account(apiKey: string): AccountEntry | undefined {
    return this.accounts.get(apiKey);
  }

  all(): AccountEntry[] {
    return [...this.accounts.values()];
  }

  /** An account's secret key as configured (before any PUT), so a reset works even after a secret was rotated. */
  seedSecretOf(apiKey: string): string | undefined {
    return this.seed.find((a) => a.apiKey === apiKey)?.secretKey;
  }

  /** Replaces an account's settings; its state (customers, holds, ...) stays. */
  replaceSettings(apiKey: string, settings: AccountSettings): void {
    const entry = this.accounts.get(apiKey);
    if (!entry) throw new Error(`no account ${apiKey}`);
    entry.settings = settings;
  }

  /** Creates the customer if needed and sets its settled (available before holds) balance. */
  seedCustomer(entry: AccountEntry, seed: SeedCustomer): { created: boolean } {
    const now = this.clock.now();
    const created = !entry.ledger.customers.has(seed.customerId);
    const c = entry.ledger.ensureCustomer(seed.customerId, now, seed);
    c.settled = seed.points;
    return { created };
  }

  onReset(hook: () => void): void {
    this.resetHooks.push(hook);
  }

  reset(): void {
    for (const hook of this.resetHooks) hook();
    this.clock.reset();
    this.load();
  }
}
