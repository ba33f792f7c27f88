import { existsSync } from 'node:fs';
import { Browser, chromium } from 'playwright-core';

/** Debian's chromium (.ci/run installs it when missing); no browser download, no network. */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A headless Chromium for the /docs tests; a missing browser fails the test, saying how to install it. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}
