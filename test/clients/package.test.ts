import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * clients/ is published on its own (@pos-loyalty/till-client): built in a
 * directory of its own, from the files its tsconfig names, every import of
 * what it ships stays inside the package or is a dependency it declares.
 */
describe('the till client as a package', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-client-'));
  const pkg = JSON.parse(readFileSync('clients/package.json', 'utf8')) as {
    name: string;
    types: string;
    main: string;
    files: string[];
    exports: Record<string, Record<string, string>>;
    dependencies: Record<string, string>;
  };
  const tsconfig = JSON.parse(readFileSync('clients/tsconfig.json', 'utf8')) as { files: string[] };

  beforeAll(() => {
    for (const f of ['package.json', 'tsconfig.json', ...tsconfig.files]) copyFileSync(path.join('clients', f), path.join(dir, f));
    // Only what is installed: openapi-fetch and the compiler (a real install would fetch the same).
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, env: { ...process.env, PATH }, stdio: 'pipe' });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is named, typed and exported from dist/, which it ships', () => {
    expect(pkg.name).toBe('@pos-loyalty/till-client');
    expect(pkg.files).toEqual(['dist']);
    expect(Object.keys(pkg.dependencies)).toEqual(['openapi-fetch']);
    for (const file of [pkg.main, pkg.types, ...Object.values(pkg.exports['.'])]) expect(existsSync(path.join(dir, file))).toBe(true);
  });

  it('imports nothing outside itself but its declared dependencies', () => {
    const built = readdirSync(path.join(dir, 'dist'));
    const outside: string[] = [];
    for (const file of built) {
      const text = readFileSync(path.join(dir, 'dist', file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:require\(|from |import\()\s*['"]([^'"]+)['"]/g)) {
        const local = spec.startsWith('./') && built.some((b) => b === `${spec.slice(2)}.js` || b === `${spec.slice(2)}.d.ts`);
        if (!local && !(spec in pkg.dependencies)) outside.push(`${file}: ${spec}`);
      }
    }
    expect(built).toEqual(expect.arrayContaining(['pos-client.js', 'pos-client.d.ts', 'retry-rules.js', 'pos-v1.d.ts']));
    expect(outside).toEqual([]);
  });

  it('loads on its own and makes a client', () => {
    const script = `const c = require(${JSON.stringify(path.join(dir, 'dist', 'pos-client.js'))});
      const pos = c.createPosClient({ baseUrl: 'http://till.invalid', token: 't' });
      console.log(typeof pos.POST, typeof pos.keyOf, c.retryRuleOf('POST', '/pos/v1/redemptions', 'upstream_timeout'));`;
    expect(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' }).trim()).toBe('function function stop');
  });
});
