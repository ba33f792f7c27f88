/**
 * The package registry this project installs from does not carry every
 * platform's prebuilt binary (e.g. @swc/core-darwin-arm64), so `npm install`
 * leaves them out of package-lock.json and `npm ci` then refuses the lock
 * ("Missing: ... from lock file"). This adds each missing optional platform
 * package with its os/cpu/libc, so `npm ci` knows to skip it on this machine
 * and installs it elsewhere. Run after any `npm install`: npm run lockfile:platforms
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Entry = { version?: string; optionalDependencies?: Record<string, string>; dev?: boolean; [k: string]: unknown };

const PLATFORM =
  /-(darwin|linux|win32|android|freebsd|openharmony)-(arm64|x64|arm|ia32|ppc64|s390x|loong64|riscv64)(?:-(gnu|musl|gnueabihf|musleabihf|msvc|eabi))?$/;

export function missingPlatformEntries(packages: Record<string, Entry>): Record<string, Entry> {
  const added: Record<string, Entry> = {};
  for (const meta of Object.values(packages)) {
    for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
      const key = `node_modules/${name}`;
      if (packages[key] || added[key]) continue;
      const m = PLATFORM.exec(name);
      if (!m) throw new Error(`${name} is missing from the lock and is not a platform package: run npm install again`);
      const [, os, cpu, abi] = m;
      const libc = abi === 'gnu' || abi === 'gnueabihf' ? ['glibc'] : abi === 'musl' || abi === 'musleabihf' ? ['musl'] : undefined;
      added[key] = {
        version: range.replace(/^[\^~=]/, ''),
        os: [os],
        cpu: [cpu],
        ...(libc ? { libc } : {}),
        optional: true,
        ...(meta.dev ? { dev: true } : {}),
      };
    }
  }
  return added;
}

if (require.main === module) {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Entry> };
  const added = missingPlatformEntries(lock.packages);
  Object.assign(lock.packages, added);
  writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`added ${Object.keys(added).length} platform entries to package-lock.json\n`);
}
