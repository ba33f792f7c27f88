import type { Response } from 'express';
import type { StoredResponse } from '../idempotency/types';

/** Names an answer given again as it was first given (a read-back of one the till stopped waiting for). */
export const ANSWER_REPLAYED = 'Answer-Replayed';

/** A handler's view that is an answer given before, sent byte for byte with its status (../till-answers/read-back.ts). */
export class Replay {
  constructor(
    readonly response: StoredResponse,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function replay(res: Response, r: Replay): void {
  res.status(r.response.status);
  for (const [name, value] of Object.entries(r.headers)) res.setHeader(name, value);
  if (r.response.contentType) res.setHeader('Content-Type', r.response.contentType);
  if (r.response.location) res.setHeader('Location', r.response.location);
  res.end(r.response.body);
}
