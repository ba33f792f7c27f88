import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): the
 * functions with the most self time, and self time per package or source
 * folder, so the BFF's own overhead can be told from its libraries'.
 *
 *   npx tsx bench/profile-top.ts bench/results/profiles/<file>.cpuprofile [rows]
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string): string {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return path.dirname(url.slice(src + 1));
  return url;
}

export function summarise(file: string, rows = 25): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  let total = 0;
  for (const v of selfUs.values()) total += v;
  const idle = [...selfUs].filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)?.callFrame.functionName ?? '')).reduce((a, [, v]) => a + v, 0);
  const busy = total - idle;

  const fns = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)') continue;
    const where = n.callFrame.url ? `${owner(n.callFrame.url)} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}` : '';
    fns.set(`${name}  ${where}`, (fns.get(`${name}  ${where}`) ?? 0) + us);
    owners.set(owner(n.callFrame.url), (owners.get(owner(n.callFrame.url)) ?? 0) + us);
  }
  // Each sample charged to the innermost frame in the product's own src/ (the code that asked for the work).
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const bySource = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const name = byId.get(id)?.callFrame.functionName ?? '';
    if (name === '(idle)' || name === '(program)') continue;
    let cur: number | undefined = id;
    let charged = '(no src/ frame: library or runtime only)';
    while (cur !== undefined) {
      const frame = byId.get(cur)!.callFrame;
      const at = frame.url.indexOf('/src/');
      if (at >= 0 && !frame.url.includes('node_modules')) {
        charged = `${frame.url.slice(at + 1)} ${frame.functionName || '(anonymous)'}`;
        break;
      }
      cur = parent.get(cur);
    }
    bySource.set(charged, (bySource.get(charged) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, us]) => `  ${pct(us)}  ${name}`);
  return [
    `${path.basename(file)}: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s sampled (shares below are of busy time)`,
    'Self time by package / source folder:',
    ...top(owners, 20),
    'Top functions by self time:',
    ...top(fns, rows),
    'Time charged to the innermost product (src/) function on the stack:',
    ...top(bySource, rows),
  ].join('\n');
}

if (require.main === module) {
  const [file, rows] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: npx tsx bench/profile-top.ts <file.cpuprofile> [rows]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarise(file, rows ? Number(rows) : 25)}\n`);
}
