import type { Program } from './programs';

/** An account's two keys, as the sandbox's admin API and v4.0 routes take them. */
export interface SandboxKeys {
  apiKey: string;
  secretKey: string;
}

const headers = (keys: SandboxKeys, json = false) => ({
  ...(json ? { 'Content-Type': 'application/json' } : {}),
  apikey: keys.apiKey,
  secretkey: keys.secretKey,
});

async function ok(res: Response, what: string): Promise<unknown> {
  if (!res.ok) throw new Error(`${what} on the sandbox failed: ${res.status} ${await res.text()}`);
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

export async function adminGet(sandbox: Pick<Program, 'url'>, keys: SandboxKeys, route: string): Promise<unknown> {
  return ok(await fetch(`${sandbox.url}${route}`, { headers: headers(keys) }), `GET ${route}`);
}

export async function adminSend(sandbox: Pick<Program, 'url'>, keys: SandboxKeys, method: 'POST' | 'PUT', route: string, body: unknown): Promise<unknown> {
  return ok(await fetch(`${sandbox.url}${route}`, { method, headers: headers(keys, true), body: JSON.stringify(body) }), `${method} ${route}`);
}

export async function adminPut(sandbox: Pick<Program, 'url'>, keys: SandboxKeys, route: string, body: unknown): Promise<void> {
  await adminSend(sandbox, keys, 'PUT', route, body);
}

/** Bulk seeding through the sandbox's admin API (`prefix0 .. prefix{count-1}`). */
export async function seedCustomers(sandbox: Pick<Program, 'url'>, keys: SandboxKeys, prefix: string, count: number, points: number): Promise<void> {
  await adminSend(sandbox, keys, 'POST', '/_sandbox/customers/bulk', { prefix, count, points });
}
