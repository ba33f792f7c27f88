import fc from 'fast-check';

/**
 * Arbitraries for hostile requests: values no till should send, mutations of
 * a valid body, broken JSON, wrong content types, odd path parameters.
 */

/** Put inside `__proto__`/`constructor`/`prototype` objects; must never appear on Object.prototype. */
export const POLLUTION_MARK = 'fuzzPolluted';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A copy of `obj` with an own enumerable `key` (works for "__proto__" too, which JSON.stringify then writes). */
export function withKey(obj: object, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

export const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', ''] as const;

const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  2 ** 64,
  2 ** 31,
  -(2 ** 31),
  1e21,
  1e-320,
  5e-324,
  -0,
  -1,
  -0.01,
  0,
  0.001,
  0.005,
  1.5,
  99999999999.99,
  123456789.12345679,
);
const numericString = fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e999', '-1', '0x10', '1_000', ' 12 ', '', '١٢٣', '12abc', 'null', 'true', '[]', '{}');
const shortString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
  fc.constantFrom(
    '../../etc/passwd',
    '%2e%2e%2f',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '${jndi:ldap://x}',
    '\u0000',
    '\u202e',
    '\ud800',
    'rdm_AAAAAAAAAAAA',
    '123456',
    '2024-02-30T25:61:00Z',
  ),
);
const longString = fc.oneof(
  fc.integer({ min: 201, max: 6000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 60, max: 1500 }).map((n) => '😀'.repeat(n)),
);

/** Nested `[[[...]]]` or `{"a":{"a":...}}` of the given depth. */
export function deepNest(depth: number, kind: 'array' | 'object'): Json {
  let v: Json = kind === 'array' ? [] : {};
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}
// Printed by name in a counterexample: fast-check's printer would recurse as deep as the value.
const deep = fc.tuple(fc.integer({ min: 20, max: 2000 }), fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>).map(([d, k]) => {
  const v = deepNest(d, k) as object;
  Object.defineProperty(v, fc.toStringMethod, { value: () => `deepNest(${d}, '${k}')` });
  return v as Json;
});
const polluter = fc
  .constantFrom('__proto__', 'constructor', 'prototype')
  .map((k) => withKey({}, k, k === 'constructor' ? { prototype: { [POLLUTION_MARK]: true } } : { [POLLUTION_MARK]: true }));

/** One hostile value for a field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 3, arbitrary: hugeNumber },
  { weight: 2, arbitrary: numericString },
  { weight: 3, arbitrary: shortString },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: polluter },
);

const extraKey = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...SPECIAL_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });

type PathStep = string | number;

/** Every path to a value inside `v` (the root is []). */
function pathsOf(v: unknown, at: PathStep[] = [], out: PathStep[][] = []): PathStep[][] {
  out.push(at);
  if (at.length >= 12) return out;
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) pathsOf((v as Record<string, unknown>)[k], [...at, k], out);
  return out;
}

function update(v: unknown, path: PathStep[], fn: (cur: unknown) => unknown | typeof REMOVE): unknown {
  if (path.length === 0) return fn(v);
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    const next = update(copy[head as number], rest, fn);
    if (next === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const obj = v as Record<string, unknown>;
  const next = update(obj[head as string], rest, fn);
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) if (k !== head) Object.defineProperty(copy, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  if (next !== REMOVE) Object.defineProperty(copy, head as string, { value: next, enumerable: true, writable: true, configurable: true });
  return copy;
}
const REMOVE = Symbol('remove');

export interface Mutation {
  op: 'set' | 'delete' | 'add' | 'wrap';
  at: number;
  key: string;
  value: unknown;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set', 'set', 'set', 'delete', 'add', 'add', 'wrap') as fc.Arbitrary<Mutation['op']>,
  at: fc.nat(),
  key: extraKey,
  value: hostileValue,
});

/** Applies mutations to a valid body; each picks a place in the (current) tree. */
export function mutate(body: unknown, mutations: Mutation[]): unknown {
  let v = body;
  for (const m of mutations) {
    const paths = pathsOf(v);
    const path = paths[m.at % paths.length];
    if (m.op === 'set') v = update(v, path, () => m.value);
    else if (m.op === 'delete') v = path.length ? update(v, path, () => REMOVE) : undefined;
    else if (m.op === 'wrap') v = update(v, path, (cur) => (m.value === null ? [cur] : { [m.key || 'x']: cur }));
    else {
      // add: a key onto the nearest object at or above the path
      let p = path;
      const objectAt = (q: PathStep[]) => q.reduce<unknown>((o, s) => (o as Record<string, unknown>)?.[s as string], v);
      while (p.length && !(objectAt(p) && typeof objectAt(p) === 'object' && !Array.isArray(objectAt(p)))) p = p.slice(0, -1);
      const target = objectAt(p);
      if (target && typeof target === 'object' && !Array.isArray(target)) v = update(v, p, (cur) => withKey(cur as object, m.key, m.value));
    }
  }
  return v;
}

/** Ways to break JSON text that was valid. */
export const corruption = fc.oneof(
  fc.nat().map((n) => (t: string) => t.slice(0, n % Math.max(1, t.length))),
  fc.tuple(fc.nat(), fc.constantFrom('{', '}', '"', ',', ':', '[', '\\', 'NaN', 'undefined', "'", '\u0000', '/*', '\ufeff')).map(([n, c]) => (t: string) => {
    const i = n % (t.length + 1);
    return t.slice(0, i) + c + t.slice(i);
  }),
  fc.constantFrom(
    (t: string) => t.replace(/"/g, "'"),
    (t: string) => `${t},`,
    (t: string) => `${t}}`,
    (t: string) => t.replace(/}$/, ',}'),
    (t: string) => `\ufeff${t}`,
    () => 'NaN',
    () => '{"amount": NaN}',
    () => '{"amount": Infinity}',
    () => '{"a":1,"a":2',
    () => 'null',
    () => '"just a string"',
    () => '42',
    () => '[]',
    () => 'true',
  ),
);

export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin-1-nope',
  'application/jsonx',
  'json',
  'application/vnd.pos+json',
  '*/*',
  'text/html; charset=utf-8',
];

/** Path parameter values nobody should send. */
export const oddPathParam: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'a%2Fb',
    '%2F',
    '%2e%2e',
    '..',
    '.',
    '%2e',
    '%00',
    '%',
    '%zz',
    '%E0%A4%A',
    'a%20b',
    '%C0%AE%C0%AE',
    '__proto__',
    'constructor',
    'rdm_',
    'rdm_%2F..%2F..',
    '-1',
    '0',
    '1e309',
    'NaN',
    '%F0%9F%98%80',
  ),
  fc.integer({ min: 201, max: 9000 }).map((n) => 'y'.repeat(n)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
);

/** Query strings: repeated keys, unknown keys, huge values. */
export const oddQuery: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '?lang=',
    '?lang=xx&lang=yy',
    '?lang[]=en',
    '?lang[a]=b',
    '?__proto__[x]=1',
    '?expand=tier&expand=referrals',
    '?lang=%FF',
    '?=',
    '?&&&',
    '?lang=en-US-x-y-z',
  ),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 4 }).map((d) => `?${new URLSearchParams(d).toString()}`),
  fc.integer({ min: 1000, max: 6000 }).map((n) => `?lang=${'e'.repeat(n)}`),
);
