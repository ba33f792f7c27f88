import type { StoredResponse } from '../stored-response';
import type { AnswerFate, TillAnswer, TillAnswerStore } from './types';

/** The in-process store, for runs without Redis: one instance sees only its own answers. */
export class MemoryTillAnswerStore implements TillAnswerStore {
  readonly kind = 'memory' as const;
  private readonly answers = new Map<string, { a: TillAnswer; until: number }>();
  private readonly keys = new Map<string, { requestId: string; until: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  async open(a: { terminalId: string; requestId: string; key?: string; createdAt: number }, ttlMs: number): Promise<void> {
    const now = this.clock();
    const until = now + ttlMs;
    // Expired records go as new ones come (as Redis's TTL drops them), so a long run does not keep every answer.
    for (const map of [this.answers, this.keys] as Map<string, { until: number }>[]) for (const [k, v] of map) if (v.until <= now) map.delete(k);
    this.answers.set(this.id(a.terminalId, a.requestId), { a: { requestId: a.requestId, terminalId: a.terminalId, createdAt: a.createdAt }, until });
    if (a.key !== undefined) this.keys.set(this.id(a.terminalId, a.key), { requestId: a.requestId, until });
  }

  async get(terminalId: string, requestId: string): Promise<TillAnswer | undefined> {
    const found = this.live(terminalId, requestId);
    return found && { ...found };
  }

  async byKey(terminalId: string, key: string): Promise<string | undefined> {
    const k = this.keys.get(this.id(terminalId, key));
    return k && k.until > this.clock() ? k.requestId : undefined;
  }

  async settle(terminalId: string, requestId: string, response: StoredResponse): Promise<void> {
    const found = this.live(terminalId, requestId);
    if (found) found.response = response;
  }

  async decide(terminalId: string, requestId: string, fate: AnswerFate): Promise<AnswerFate | undefined> {
    const found = this.live(terminalId, requestId);
    if (!found) return undefined;
    found.fate ??= fate;
    return found.fate;
  }

  async forgetAnswers(names: (response: StoredResponse) => boolean): Promise<number> {
    let forgotten = 0;
    for (const [k, { a }] of this.answers) if (a.response && names(a.response) && this.answers.delete(k)) forgotten += 1;
    return forgotten;
  }

  private live(terminalId: string, requestId: string): TillAnswer | undefined {
    const e = this.answers.get(this.id(terminalId, requestId));
    return e && e.until > this.clock() ? e.a : undefined;
  }

  private id(terminalId: string, rest: string): string {
    return `${terminalId}\n${rest}`;
  }
}
