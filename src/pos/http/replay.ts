import type { Response } from 'express';
import type { Replay } from '../stored-response';

export { ANSWER_REPLAYED, Replay } from '../stored-response';

/** Sends an answer given before byte for byte, with its status and headers. */
export function replay(res: Response, r: Replay): void {
  res.status(r.response.status);
  for (const [name, value] of Object.entries(r.headers)) res.setHeader(name, value);
  if (r.response.contentType) res.setHeader('Content-Type', r.response.contentType);
  if (r.response.location) res.setHeader('Location', r.response.location);
  res.end(r.response.body);
}
