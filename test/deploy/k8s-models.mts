/**
 * Validates Kubernetes manifests against the API's schemas with kubernetes-models, which is ESM
 * only (jest here loads CommonJS), so k8s-manifests.test.ts runs this as its own process.
 * Input: the manifest files as arguments. Output: one JSON line per document, `{ file, kind, name, errors }`.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';

// Typed loosely: under this project's module resolution the models' base class types do not resolve.
const MODELS: Record<string, new (data: never) => unknown> = {
  'apps/v1 Deployment': Deployment,
  'v1 ConfigMap': ConfigMap,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};

for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const data = doc.toJS() as { apiVersion?: string; kind?: string; metadata?: { name?: string } };
    const errors = doc.errors.map((e) => e.message);
    const Model = MODELS[`${data.apiVersion} ${data.kind}`];
    if (!Model) errors.push(`no model for ${data.apiVersion} ${data.kind}`);
    else {
      try {
        (new Model(data as never) as { validate(): void }).validate();
      } catch (err) {
        errors.push(String(err));
      }
    }
    process.stdout.write(`${JSON.stringify({ file, kind: data.kind, name: data.metadata?.name, errors })}\n`);
  }
}
