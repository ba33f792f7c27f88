import { schemaProblems } from '../reference/sandbox-published';

/**
 * Asserts a sandbox answer matches the published v4.0 response schema of
 * `method path` (the committed fixture, read by test/reference/sandbox-published.ts).
 * Schema only: these answers leave out documented fields the sandbox has no
 * use for (the README's reference section says which).
 */
export function expectReferenceShape(method: string, path: string, body: unknown): void {
  const problems = schemaProblems(method, path, body);
  if (problems.length)
    throw new Error(`${method.toUpperCase()} ${path}: answer does not match the published schema:\n  ${problems.join('\n  ')}\n${JSON.stringify(body)}`);
}
