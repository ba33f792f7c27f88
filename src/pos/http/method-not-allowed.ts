import type { Express, RequestHandler } from 'express';
import { problem } from '../../platform/problem';

/** The parts of Express's router layers read here (router 2: `match` is pure, it returns the match). */
interface Layer {
  match(path: string): false | { path: string };
  route?: { methods: Record<string, boolean | undefined> };
  handle?: { stack?: Layer[] };
}

/** Methods some route answers for `path`, matched as the router matches it, mounted routers included. */
function methodsFor(stack: Layer[], path: string, found: Set<string>): void {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') found.add(method.toUpperCase());
    } else if (layer.handle?.stack) {
      methodsFor(layer.handle.stack, path.slice(matched.path.length) || '/', found);
    }
  }
}

/**
 * Put just before the 404: a path some route takes with other methods is a
 * 405 with `Allow` naming them. Nothing that reaches it had an answer yet, so
 * no other answer changes (authentication and the rest have run already).
 */
export function methodNotAllowed(app: Express): RequestHandler {
  return (req, res, next) => {
    const found = new Set<string>();
    methodsFor((app.router as unknown as { stack: Layer[] }).stack, req.path, found);
    if (found.has('GET')) found.add('HEAD');
    found.delete(req.method);
    if (found.size === 0) return next();
    const allow = [...found].sort().join(', ');
    res.setHeader('Allow', allow);
    next(problem('method_not_allowed', `${req.method} is not allowed on ${req.path}; it takes ${allow}`));
  };
}
