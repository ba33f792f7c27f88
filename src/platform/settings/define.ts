import { z } from 'zod';

/**
 * How a feature declares its settings: each variable once, with its schema
 * (validation, default, conversion) and the words the generated docs use.
 * The feature's slice of the configuration and its type follow from that.
 */

/** NODE_ENV's values; production refuses what only suits a trial. */
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** Facts about the deployment that some defaults follow (read before any feature's slice). */
export interface Deployment {
  env: NodeEnv;
  /** No LOYALTY_BASE_URL: the BFF starts the bundled sandbox and talks to it. */
  bundledSandbox: boolean;
}

/** What the generated `.env.example` and README table say about a variable. */
export interface SettingDoc {
  /** What it does, its unit and range: the comment above it in `.env.example`. */
  description: string;
  /** The default in words, where the schema's default value does not say it all (none, or a unit). */
  default?: string;
  /** One line for the README's table of the settings most deployments touch; absent: `.env.example` only. */
  readme?: string;
}

export interface Setting<S extends z.ZodType = z.ZodType> {
  readonly variable: string;
  readonly schema: S;
  readonly doc: SettingDoc;
}

export function setting<S extends z.ZodType>(variable: string, schema: S, doc: SettingDoc): Setting<S> {
  return { variable, schema, doc };
}

/** A feature's settings by the name its readers use; a nested object is a group within the slice. */
export type SettingsTree = { readonly [key: string]: Setting | SettingsTree };

/** The validated values of a tree, under the same keys. */
export type ValuesOf<T extends SettingsTree> = {
  -readonly [K in keyof T]: T[K] extends Setting<infer S> ? z.output<S> : T[K] extends SettingsTree ? ValuesOf<T[K]> : never;
};

export interface Feature<T extends SettingsTree = SettingsTree, Slice = unknown> {
  /** Heading of the feature's block in `.env.example`. */
  readonly title: string;
  /** Comment lines under the heading, about the block as a whole. */
  readonly notes?: readonly string[];
  readonly settings: T;
  /**
   * The slice the feature's readers get. Most features take their values as
   * they are; one whose values combine (a TLS pair, a Redis topology) builds
   * that here and adds a problem for each rule among them that is broken.
   */
  read(values: ValuesOf<T>, deployment: Deployment, problems: string[]): Slice;
}

export function feature<T extends SettingsTree, Slice = ValuesOf<T>>(def: {
  title: string;
  notes?: readonly string[];
  settings: T;
  read?: (values: ValuesOf<T>, deployment: Deployment, problems: string[]) => Slice;
}): Feature<T, Slice> {
  return { title: def.title, notes: def.notes, settings: def.settings, read: def.read ?? ((values) => values as unknown as Slice) };
}

/** The configuration a feature's readers get. */
export type SliceOf<F> = F extends { read(...args: never[]): infer Slice } ? Slice : never;

function isSetting(node: Setting | SettingsTree): node is Setting {
  return typeof node.variable === 'string' && node.schema instanceof z.ZodType;
}

/** Every variable of a tree, in declaration order. */
export function settingsIn(tree: SettingsTree): Setting[] {
  return Object.values(tree).flatMap((node) => (isSetting(node) ? [node] : settingsIn(node)));
}

/** A tree's values out of the validated environment (keyed by variable name). */
export function valuesOf<T extends SettingsTree>(tree: T, env: Record<string, unknown>): ValuesOf<T> {
  const entries = Object.entries(tree).map(([key, node]) => [key, isSetting(node) ? env[node.variable] : valuesOf(node, env)]);
  return Object.fromEntries(entries) as ValuesOf<T>;
}

/** The value a schema gives an unset variable, before any conversion after it; undefined when it has none. */
export function defaultOf(schema: z.ZodType): unknown {
  if (schema instanceof z.ZodDefault) return schema.def.defaultValue;
  if (schema instanceof z.ZodPipe) return defaultOf(schema.in as z.ZodType);
  return undefined;
}
