/**
 * The container's HEALTHCHECK: GET /healthz over HTTP, or over HTTPS when
 * TLS_CERT_FILE is set, at the address HOST binds (the certificate is for the
 * store's name, not that address, so it is not verified here; this checks
 * liveness, not identity).
 * When client certificates are required the handshake cannot complete without
 * one, so then an accepted TCP connection is the check. Exit 0 healthy, 1 not.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { localAddressOf } from './local-address';

const port = Number(process.env.PORT || 8080);
// Where the BFF binds (HOST, as src/platform/settings/http.ts reads it): a store may bind one LAN address only.
const host = localAddressOf(process.env.HOST || '0.0.0.0');
const tls = Boolean(process.env.TLS_CERT_FILE);
const mtlsRequired = tls && Boolean(process.env.TLS_CLIENT_CA_FILE) && !/^(false|0|no)$/.test(process.env.TLS_CLIENT_CERT_REQUIRED ?? '');
const done = (ok: boolean) => process.exit(ok ? 0 : 1);
setTimeout(() => done(false), 2500).unref();

if (mtlsRequired) {
  const socket = net.connect(port, host, () => {
    socket.destroy();
    done(true);
  });
  socket.on('error', () => done(false));
} else {
  const get = tls ? https.get : http.get;
  const req = get({ host, port, path: '/healthz', rejectUnauthorized: false }, (res) => {
    res.resume();
    done(res.statusCode === 200);
  });
  req.on('error', () => done(false));
}
