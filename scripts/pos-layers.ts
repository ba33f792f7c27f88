/**
 * The BFF's folders form layers: no folder of src/pos reaches back to itself
 * through others (a feature that needs another never is needed by it, directly
 * or not). dependency-cruiser checks modules; this checks their folders, and
 * prints the folders bottom-up. Part of `npm run lint:deps`.
 *
 * A feature's `routes.ts` counts apart from its feature (its entries sit above
 * `http/`, which serves them); the assembly (app, server, the route table,
 * PosDeps, the document built from the table, the command-line programs) is
 * the top and is left out.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ASSEMBLY = /^src\/pos\/(app|server|routes|deps)\.ts$|^src\/pos\/openapi\/index\.ts$|^src\/pos\/http\/ops\.ts$|^src\/pos\/[^/]+\/cli\.ts$/;

interface Cruised {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** The layer a module belongs to: its folder under src/pos, its feature's entries, or a loose file. */
export function layerOf(file: string): string | undefined {
  if (!file.startsWith('src/pos/') || ASSEMBLY.test(file)) return undefined;
  const parts = file.slice('src/pos/'.length).split('/');
  if (parts.length === 1) return parts[0].replace(/\.ts$/, '');
  return parts.at(-1) === 'routes.ts' && parts.length === 2 ? `${parts[0]} entries` : parts[0];
}

/** Folders that reach back to themselves (strongly connected, more than one), and the rest bottom-up. */
export function layers(edges: Map<string, Set<string>>): { circles: string[][]; order: string[] } {
  const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      groups.push(group.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  // Tarjan finds a group only after every group it depends on: `groups` is already bottom-up.
  return { circles: groups.filter((g) => g.length > 1), order: groups.flat() };
}

function main(): void {
  const bin = path.join('node_modules', '.bin', 'depcruise');
  const out = execFileSync(bin, ['src/pos', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const cruised = JSON.parse(out) as Cruised;
  const edges = new Map<string, Set<string>>();
  const via = new Map<string, string>();
  for (const m of cruised.modules) {
    const from = layerOf(m.source);
    if (!from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const d of m.dependencies) {
      const to = layerOf(d.resolved);
      if (!to || to === from) continue;
      edges.get(from)!.add(to);
      if (!via.has(`${from} -> ${to}`)) via.set(`${from} -> ${to}`, `${m.source} -> ${d.resolved}`);
    }
  }
  const { circles, order } = layers(edges);
  if (circles.length === 0) {
    console.log(`src/pos layers, bottom-up: ${order.join(', ')}`);
    return;
  }
  for (const group of circles) {
    console.error(`These folders of src/pos reach back to themselves: ${group.join(', ')}`);
    for (const a of group) for (const b of edges.get(a) ?? []) if (group.includes(b)) console.error(`  ${a} -> ${b}   (${via.get(`${a} -> ${b}`)})`);
  }
  process.exitCode = 1;
}

if (require.main === module) main();
