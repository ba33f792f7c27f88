import { fixture, fromPropertyExamples, PREFIX } from './sandbox-published';

export interface PublishedAnswer {
  name: string;
  status: string;
  /** Undefined: the reference documents no body (e.g. `200` with a description only). */
  body: unknown;
}

/** Every 2xx answer the reference publishes for an operation: its `example`, each of its `examples`, and the one its property examples make. */
export function publishedAnswers(method: string, p: string): PublishedAnswer[] {
  const op = fixture.paths[PREFIX + p]?.[method];
  if (!op) throw new Error(`${method} ${p} is not in the fixture`);
  const out: PublishedAnswer[] = [];
  for (const [status, response] of Object.entries<Record<string, any>>(op.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const media = response.content?.['application/json'];
    if (!media) {
      out.push({ name: 'no body', status, body: undefined });
      continue;
    }
    if ('example' in media) out.push({ name: 'example', status, body: media.example });
    for (const [name, ex] of Object.entries<{ value: unknown }>(media.examples ?? {})) out.push({ name: `examples.${name}`, status, body: ex.value });
    const assembled = media.schema ? fromPropertyExamples(media.schema) : undefined;
    if (assembled !== undefined) out.push({ name: 'property examples', status, body: assembled });
  }
  return out;
}
