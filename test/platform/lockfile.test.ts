import { readFileSync } from 'node:fs';
import { missingPlatformEntries } from '../../scripts/lockfile-platforms';

// `npm ci` refuses a lock that lacks any optional dependency; this catches it before CI does.
it('package-lock.json lists every optional dependency (npm run lockfile:platforms adds the platform ones)', () => {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  expect(Object.keys(missingPlatformEntries(lock.packages))).toEqual([]);
});

it('a missing platform package is added with its os, cpu and libc', () => {
  const added = missingPlatformEntries({
    'node_modules/x': { version: '1.0.0', dev: true, optionalDependencies: { '@x/core-linux-arm-gnueabihf': '1.0.0', '@x/core-darwin-arm64': '^1.0.0' } },
  });
  expect(added['node_modules/@x/core-linux-arm-gnueabihf']).toEqual({
    version: '1.0.0',
    os: ['linux'],
    cpu: ['arm'],
    libc: ['glibc'],
    optional: true,
    dev: true,
  });
  expect(added['node_modules/@x/core-darwin-arm64']).toEqual({ version: '1.0.0', os: ['darwin'], cpu: ['arm64'], optional: true, dev: true });
});
