import { existsSync, readFileSync } from 'node:fs';
import { k8sDocuments, parseUnit, UNIT } from './manifests';

/** docs/operator: what its pages say of the files beside them and of the tests they cite. */
const deploy = readFileSync('docs/operator/deploy.md', 'utf8');
const topology = readFileSync('docs/operator/topology.md', 'utf8');

it('every test a page names exists, and every quoted title after it is in that file', () => {
  const cited = [...`${deploy}\n${topology}`.matchAll(/`(test\/[\w./-]+\.test\.ts)`((?:\s*"[^"]+")*)/g)];
  expect(cited.length).toBeGreaterThan(5);
  for (const [, file, titles] of cited) {
    expect([file, existsSync(file)]).toEqual([file, true]);
    const source = readFileSync(file, 'utf8').replace(/\s+/g, ' ');
    for (const [, words] of titles.matchAll(/"([^"]+)"/g)) expect([file, words, source.includes(words.replace(/\s+/g, ' '))]).toEqual([file, words, true]);
  }
});

it("the operator guide's index links both pages", () => {
  const index = readFileSync('docs/operator/README.md', 'utf8');
  expect(index).toContain('](deploy.md)');
  expect(index).toContain('](topology.md)');
});

it("the figures deploy.md gives are the unit's and the manifests'", () => {
  const service = parseUnit(readFileSync(UNIT, 'utf8')).Service;
  expect(deploy).toContain(`\`TimeoutStopSec=${service.TimeoutStopSec[0]}\``);
  expect(deploy).toContain(`\`StateDirectory\``);
  const docs = k8sDocuments();
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const pod = deployment.spec.template.spec;
  const settings = docs.find((d) => d.kind === 'ConfigMap').data;
  expect(deploy).toContain(`**Three replicas on one Redis**`);
  expect(deployment.spec.replicas).toBe(3);
  expect(deploy).toContain('keeps two available');
  expect(docs.find((d) => d.kind === 'PodDisruptionBudget').spec.minAvailable).toBe(2);
  expect(deploy).toContain(`(\`OPS_PORT\` ${settings.OPS_PORT}, \`OPS_HOST=${settings.OPS_HOST}\``);
  expect(deploy).toContain(`only the till port, ${settings.PORT}.`);
  expect(deploy).toContain(`\`terminationGracePeriodSeconds: ${pod.terminationGracePeriodSeconds}\``);
  expect(deploy).toContain(`uid ${pod.securityContext.runAsUser}`);
  expect(deploy).toContain(`(\`${settings.TERMINALS_FILE.replace(/\/[^/]+$/, '')}\``);
  expect(deploy).toContain(`(\`${settings.RECONCILIATION_REPORT_DIR}\``);
  expect(topology).toContain('`deploy/k8s`: three replicas');
});
