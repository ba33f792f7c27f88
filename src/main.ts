/**
 * Entry point (`npm start`, `node dist/main.js`). The Node check runs first,
 * before the program loads: on an older Node it refuses, saying which is needed.
 */
import { nodeVersionProblem, requiredNodeRange } from './platform/node-version';
import { holdProcessWarnings } from './platform/stray-output';

// Before any library loads (one may warn as it does): Node's plain-text warnings are held for the JSON log.
holdProcessWarnings();

const tooOld = nodeVersionProblem(requiredNodeRange(), process.version);
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exitCode = 2;
} else {
  void import('./start').then(({ start }) => start(process.argv.slice(2)));
}
