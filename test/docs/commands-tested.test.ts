import { existsSync, readFileSync } from 'node:fs';
import { DOC_FILES } from '../support/docs';

/**
 * Every shell block in README.md and docs/ is run by a test, or says here why it cannot be run
 * on this machine (and what checks it instead). A new block with neither fails this test.
 */
type Entry = { file: string; heading: string; nth: number } & ({ runner: string; names: string } | { notRunHere: string; checkedBy: string });
const COMMANDS: Entry[] = [
  { file: 'README.md', heading: '## The two commands', nth: 0, runner: 'test/readme/npm-start.ts', names: 'src/main.ts' },
  { file: 'README.md', heading: '## The two commands', nth: 1, runner: '.ci/run', names: 'npm test' },
  { file: 'README.md', heading: '## A whole checkout with points', nth: 0, runner: 'test/readme/walkthrough.test.ts', names: '## A whole checkout with points' },
  { file: 'docs/till-developer.md', heading: '### A coupon sale and its printed receipt', nth: 0, runner: 'test/readme/walkthrough.test.ts', names: '### A coupon sale' },
  { file: 'docs/till-developer.md', heading: '## A till in TypeScript: the typed client', nth: 0, runner: 'test/clients/package.test.ts', names: "'build'" },
  { file: 'docs/till-developer.md', heading: '## A till in TypeScript: the typed client', nth: 1, runner: 'test/clients/example-till.test.ts', names: '## A till in TypeScript' },
  { file: 'docs/till-developer.md', heading: '## The sandbox alone', nth: 0, runner: 'test/readme/walkthrough.test.ts', names: "readmeFence(heading, 'bash')" },
  { file: 'docs/till-developer.md', heading: '## The sandbox alone', nth: 1, runner: 'test/readme/walkthrough.test.ts', names: "readmeFence('## The sandbox alone', 'bash', 1)" },
  { file: 'docs/till-developer.md', heading: '#### OTP mode', nth: 0, runner: 'test/pos/otp/otp-mode.test.ts', names: 'otp-mode' },
  { file: 'docs/store-manager.md', heading: "## For store managers: the audit trail and the day's reconciliation", nth: 0, runner: 'scripts/manager-reports.ts', names: '/audit?date=' },
  { file: 'docs/operator/deploy.md', heading: '## The image and Docker Compose', nth: 0, runner: 'test/store/run-stage.test.ts', names: '## The image and Docker Compose' },
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((nth) => ({
    file: 'docs/operator/deploy.md',
    heading: '## A Debian host whose Node is older than 24, with systemd',
    nth,
    runner: 'test/deploy/debian-host.test.ts',
    names: '## A Debian host',
  })),
  {
    file: 'docs/operator/deploy.md',
    heading: '## Kubernetes',
    nth: 0,
    notRunHere: 'needs a Kubernetes cluster',
    checkedBy: 'test/deploy/k8s-manifests.test.ts',
  },
  ...['## Everyday commands', '## Stores', '## Rotating a token', '## Bulk import and export', '## Redis loss (TERMINALS_SHARED=redis)'].map((heading) => ({
    file: 'docs/operator/terminals.md',
    heading,
    nth: 0,
    runner: 'test/docs/terminals-doc.test.ts',
    names: `'${heading}'`,
  })),
];

/** Every ```bash / ```sh block: its file, the heading above it and its place under that heading. */
function shellBlocks(): { file: string; heading: string; nth: number }[] {
  const found: { file: string; heading: string; nth: number }[] = [];
  for (const file of DOC_FILES) {
    let heading = '';
    let nth = 0;
    let fence = false;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.startsWith('```')) {
        if (!fence && /^```(bash|sh|shell)\s*$/.test(line)) found.push({ file, heading, nth: nth++ });
        fence = !fence;
      } else if (!fence && /^#{1,6} /.test(line)) [heading, nth] = [line, 0];
    }
  }
  return found;
}

describe('commands in the documents', () => {
  const key = (e: { file: string; heading: string; nth: number }) => `${e.file} | ${e.heading} | #${e.nth}`;

  it('every shell block is listed here, and every listed block exists', () => {
    expect(shellBlocks().map(key).sort()).toEqual(COMMANDS.map(key).sort());
  });

  it('each is run by a test that names it, or says why not and what checks it instead', () => {
    for (const e of COMMANDS) {
      if ('runner' in e) {
        expect([key(e), existsSync(e.runner) && readFileSync(e.runner, 'utf8').includes(e.names)]).toEqual([key(e), true]);
      } else {
        expect(e.notRunHere.length).toBeGreaterThan(10);
        expect([key(e), existsSync(e.checkedBy)]).toEqual([key(e), true]);
      }
    }
  });
});
