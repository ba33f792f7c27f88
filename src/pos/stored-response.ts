/** An answer as the till got it, kept to give again byte for byte: a key's replay (../idempotency), a read-back (../till-answers). */
export interface StoredResponse {
  status: number;
  contentType?: string;
  /** Kept because a 201 names the created resource there. */
  location?: string;
  body: string;
}

/** Names an answer given again for its Idempotency-Key (../idempotency). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Names an answer given again as it was first given (a read-back of one the till stopped waiting for). */
export const ANSWER_REPLAYED = 'Answer-Replayed';

/** A handler's view that is an answer given before, sent byte for byte with its status (../till-answers/read-back.ts; http/replay.ts sends it). */
export class Replay {
  constructor(
    readonly response: StoredResponse,
    readonly headers: Record<string, string> = {},
  ) {}
}
