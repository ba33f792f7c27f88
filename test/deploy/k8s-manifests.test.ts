import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSandboxAccounts, startSandbox, type StartedSandbox } from '../../src/sandbox';
import { freePort } from '../support/ports';
import { uniquePrefix } from '../support/redis';
import { startProgram } from '../store/program';
import { waitForOutput } from '../store/readme-blocks';
import { K8S_DIR, k8sDocuments, SETTING_NAMES, validateWithModels } from './manifests';

/**
 * deploy/k8s: every manifest valid for the Kubernetes API (kubernetes-models), and what makes the
 * fleet work: replicas on one Redis, probes on the ops listener, keys from the Secret, a budget that
 * selects the pods, a grace longer than the BFF's shutdown, a root file system it never writes.
 */
const docs = k8sDocuments();
const one = (kind: string) => {
  const found = docs.filter((d) => d.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
};
const deployment = one('Deployment');
const pod = deployment.spec.template.spec;
const bff = pod.containers[0];
const settings: Record<string, string> = one('ConfigMap').data;

describe('deploy/k8s', () => {
  it('every manifest validates against the Kubernetes API schemas', () => {
    const results = validateWithModels(
      readdirSync(K8S_DIR)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => path.join(K8S_DIR, f)),
    );
    expect(results.map((r) => r.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PersistentVolumeClaim', 'PodDisruptionBudget', 'Secret', 'Service']);
    expect(results.filter((r) => r.errors.length)).toEqual([]);
  });

  it('the validation refuses a broken Deployment (so a pass means something)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-k8s-'));
    try {
      const broken = path.join(dir, 'broken.yaml');
      writeFileSync(broken, readFileSync(path.join(K8S_DIR, 'deployment.yaml'), 'utf8').replace('replicas: 3', 'replicas: three'));
      expect(validateWithModels([broken])[0].errors.join()).toMatch(/replicas must be integer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs several replicas, and the disruption budget and the Service select exactly its pods', () => {
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    const pdb = one('PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(labels);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    const service = one('Service');
    expect(service.spec.selector).toEqual(labels);
    // The Service carries the till port only; the ops port stays off it.
    const tillPort = bff.ports.find((p: any) => p.name === 'till');
    expect(String(tillPort.containerPort)).toBe(settings.PORT);
    expect(service.spec.ports.map((p: any) => p.targetPort)).toEqual(['till']);
  });

  it('probes /healthz and /readyz on the ops port, which listens beyond loopback', () => {
    const opsPort = bff.ports.find((p: any) => p.name === 'ops');
    expect(String(opsPort.containerPort)).toBe(settings.OPS_PORT);
    expect(settings.OPS_HOST).toBe('0.0.0.0');
    expect(bff.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
    expect(bff.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
  });

  it('takes the loyalty keys and REDIS_URL from the Secret (secretKeyRef), never from the ConfigMap or a literal', () => {
    const secret = one('Secret');
    for (const name of ['LOYALTY_API_KEY', 'LOYALTY_SECRET_KEY', 'REDIS_URL']) {
      const entry = bff.env.find((e: any) => e.name === name);
      expect(entry).toEqual({ name, valueFrom: { secretKeyRef: { name: secret.metadata.name, key: name } } });
      expect(Object.keys(secret.stringData)).toContain(name);
      expect(settings).not.toHaveProperty(name);
    }
    // The example holds placeholders only.
    for (const value of Object.values<string>(secret.stringData)) expect(value).toMatch(/replace-with/);
  });

  it('reads its settings from the ConfigMap, every one a setting the program knows', () => {
    expect(bff.envFrom).toEqual([{ configMapRef: { name: one('ConfigMap').metadata.name } }]);
    expect(Object.keys(settings).filter((k) => !SETTING_NAMES.has(k))).toEqual([]);
    expect(settings.NODE_ENV).toBe('production');
  });

  it('gives a stopping pod longer than the grace after SIGTERM plus the drain', () => {
    // The grace is SHUTDOWN_GRACE_SECONDS (10 s by default); the drain SHUTDOWN_TIMEOUT_MS.
    const grace = Number(settings.SHUTDOWN_GRACE_SECONDS ?? 10);
    const drain = Number(settings.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(grace + drain);
    // No preStop hook: the BFF's grace is the wait for the endpoints to drop the pod.
    expect(bff.lifecycle?.preStop).toBeUndefined();
  });

  it("runs as the image's non-root user on a read-only root, writing only to its volumes", () => {
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^USER node$/m); // uid 1000 in node's images
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(bff.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(bff.resources.requests).toBeDefined();
    expect(bff.resources.limits.memory).toBeDefined();
    // What the BFF writes: the terminals file's directory and the reconciliation reports.
    const mounts = bff.volumeMounts.map((m: any) => m.mountPath);
    expect(mounts).toContain(path.dirname(settings.TERMINALS_FILE));
    expect(mounts).toContain(settings.RECONCILIATION_REPORT_DIR);
    // The terminals directory is one claim every replica shares.
    const terminals = pod.volumes.find((v: any) => v.name === bff.volumeMounts.find((m: any) => m.mountPath === path.dirname(settings.TERMINALS_FILE)).name);
    const claim = one('PersistentVolumeClaim');
    expect(terminals.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
  });
});

describe("the ConfigMap's settings, started", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'posbff-k8s-run-'));
  let sandbox: StartedSandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('serve the probe paths on the ops port, in production, on one Redis', async () => {
    const account = { ...loadSandboxAccounts('config/sandbox-accounts.json')[0], apiKey: 'k8s_api_key', secretKey: 'k8s_secret_key' };
    sandbox = await startSandbox({ accounts: [account], port: 0 });
    const [port, opsPort] = [await freePort(), await freePort()];
    const child = startProgram({
      ...settings,
      // What the pod has elsewhere: its own ports here, the volumes as temp directories, the Secret's values.
      PORT: String(port),
      OPS_PORT: String(opsPort),
      HOST: '127.0.0.1',
      TERMINALS_FILE: path.join(tmp, 'terminals/terminals.json'),
      RECONCILIATION_REPORT_DIR: path.join(tmp, 'reports'),
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: account.apiKey,
      LOYALTY_SECRET_KEY: account.secretKey,
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      REDIS_KEY_PREFIX: uniquePrefix('k8s'),
    });
    try {
      await waitForOutput(child, /POS BFF listening.*\n/, 30_000);
      const ops = (p: string) => fetch(`http://127.0.0.1:${opsPort}${p}`);
      expect((await ops(bff.livenessProbe.httpGet.path)).status).toBe(200);
      const ready = await ops(bff.readinessProbe.httpGet.path);
      // Not ready before its first terminal: the probe reads the readiness answer, not a 404.
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks).toMatchObject({ redis: 'ok', upstream: 'ok', terminals: 'none' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
