/**
 * Shows and resets the fleet's OTP mode: npm run otp-mode -- show|reset.
 * The CLI itself is src/pos/otp/cli.ts, so the build carries it compiled.
 */
import { runOtpModeCli } from '../src/pos/otp/cli';

void runOtpModeCli(process.argv.slice(2));
