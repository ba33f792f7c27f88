import type { Request, Router } from 'express';
import { OPERATIONS, TierProgressQuery } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { customerIdParam, parseWith } from '../http/validate';
import { readTierProgress } from '../operations/tier-progress';

/** The `lang` header, when it is one plausible language tag (anything else means the default language). */
function langOf(req: Request): string | undefined {
  const lang = req.headers.lang;
  return typeof lang === 'string' && /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/.test(lang) ? lang : undefined;
}

export function tierProgressRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.tierProgress, (req, account) => {
    const customerId = customerIdParam(req);
    // `?expand=tier&expand=referrals` means the same as `?expand=tier,referrals`.
    const query: Record<string, unknown> = { ...req.query };
    if (Array.isArray(query.expand) && query.expand.every((v) => typeof v === 'string')) query.expand = query.expand.join(',');
    const { expand } = parseWith(TierProgressQuery, query, 'query');
    return readTierProgress(account, customerId, { lang: langOf(req), expand });
  });
}
