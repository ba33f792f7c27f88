import request from 'supertest';
import { silentLogger } from '../../../src/platform/logger';
import { startSandbox } from '../../../src/sandbox';
import { LoyaltyClient } from '../../../src/upstream';
import { e2eAccount, SANDBOX_KEYS } from '../../support/e2e';

/** A sandbox on a real port, its admin API and a loyalty client with no retries: what the outbox worker's tests deliver to. */
export async function startOutboxSandbox() {
  const sandbox = await startSandbox({ accounts: [e2eAccount()], port: 0 });
  const admin = request(sandbox.url);
  const loyalty = new LoyaltyClient({
    baseUrl: sandbox.url,
    apiKey: SANDBOX_KEYS.apikey,
    secretKey: SANDBOX_KEYS.secretkey,
    timeoutMs: 2000,
    retries: 0,
    logger: silentLogger,
  });
  return {
    admin,
    loyalty,
    clearFaults: async () => {
      await admin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
    },
    close: async () => {
      loyalty.close();
      await sandbox.close();
    },
  };
}
