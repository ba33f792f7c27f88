import type { DeliveryOutcome, NewOutboxEntry, OutboxEntry, OutboxState } from './types';

/** A record's hash fields for a new entry (the stream id is added by the script). */
export function newRecordFields(e: NewOutboxEntry, now: number): string[] {
  return [
    'kind',
    e.work.kind,
    'request',
    JSON.stringify(e.work.request),
    'orderKey',
    e.orderKey,
    'storeId',
    e.storeId,
    'terminalId',
    e.terminalId,
    'requestId',
    e.requestId,
    'reason',
    e.reason,
    'state',
    'queued',
    'attempts',
    '0',
    'nextAttemptAt',
    '0',
    'createdAt',
    String(now),
    'updatedAt',
    String(now),
    ...(e.work.kind === 'payment' && e.work.recordedAs ? ['recordedAs', e.work.recordedAs] : []),
    ...(e.work.kind === 'payment' && e.work.standIn ? ['standIn', JSON.stringify(e.work.standIn)] : []),
  ];
}

/** The fields FINISH sets for an outcome; `attempts` is the count before this delivery. */
export function outcomeFields(outcome: DeliveryOutcome, attempts: number, now: number): string[] {
  const base = ['updatedAt', String(now)];
  switch (outcome.kind) {
    case 'delivered':
      return [...base, 'state', 'delivered', 'attempts', String(attempts + 1), 'deliveredAt', String(now), 'result', JSON.stringify(outcome.result)];
    case 'retry':
      return [
        ...base,
        'state',
        'queued',
        'attempts',
        String(attempts + (outcome.counted ? 1 : 0)),
        'nextAttemptAt',
        String(outcome.nextAttemptAt),
        'lastError',
        JSON.stringify(outcome.error),
      ];
    case 'dead':
      return [...base, 'state', 'dead', 'attempts', String(attempts + 1), 'deadAt', String(now), 'lastError', JSON.stringify(outcome.error)];
  }
}

const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
const json = <T>(v: string | undefined): T | undefined => (v ? (JSON.parse(v) as T) : undefined);

/** HGETALL reply to an entry; null for a missing record. */
export function decodeRecord(id: string, h: Record<string, string>): OutboxEntry | null {
  if (!h || !h.kind) return null;
  return {
    id,
    work: {
      kind: h.kind,
      request: JSON.parse(h.request) as unknown,
      ...(h.recordedAs ? { recordedAs: h.recordedAs } : {}),
      ...(h.standIn ? { standIn: JSON.parse(h.standIn) as unknown } : {}),
    } as OutboxEntry['work'],
    orderKey: h.orderKey,
    storeId: h.storeId,
    terminalId: h.terminalId,
    requestId: h.requestId,
    reason: h.reason,
    state: h.state as OutboxState,
    attempts: Number(h.attempts),
    nextAttemptAt: Number(h.nextAttemptAt),
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
    ...(h.deliveredAt ? { deliveredAt: num(h.deliveredAt) } : {}),
    ...(h.deadAt ? { deadAt: num(h.deadAt) } : {}),
    ...(h.lastError ? { lastError: json(h.lastError) } : {}),
    ...(h.result ? { result: json(h.result) } : {}),
  };
}

/** Stream ids ("<ms>-<seq>") in stream order. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  return am.length - bm.length || (am < bm ? -1 : am > bm ? 1 : 0) || Number(as) - Number(bs);
}
