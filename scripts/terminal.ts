/**
 * Manages POS terminals and stores: npm run terminal -- <command> [options].
 * The CLI itself is src/pos/terminals/cli.ts, so the image carries it compiled.
 */
import { runCli } from '../src/pos/terminals/cli';

void runCli(process.argv.slice(2));
