import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Account } from '../accounting/account.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { ENDPOINTS } from '../catalogue/endpoints.ts';
import { accountLines, CommonLines, reportedLine } from './rate-figures.ts';

const packages = [DEFAULT_PACKAGE, { ...DEFAULT_PACKAGE, credits_per_hour: 5 }, { ...DEFAULT_PACKAGE, analyze_credits_per_hour: 7 }];
const accountWith = (pkg: (typeof packages)[number]) => ({ package: pkg }) as unknown as Account;

describe('CommonLines', () => {
  test.prop([fc.array(fc.tuple(fc.nat(packages.length - 1), fc.nat(ENDPOINTS.length - 1)), { minLength: 1, maxLength: 40 })])(
    'answers, for any order of packages and endpoints, the lines built afresh for that package and endpoint',
    (asks) => {
      const common = new CommonLines();
      for (const [p, e] of asks) {
        const account = accountWith(packages[p]!);
        const endpoint = ENDPOINTS[e]!;
        const { reported, lines } = common.of(account, endpoint);
        expect(reported).toEqual(reportedLine(account, endpoint));
        expect(lines).toEqual(accountLines(reportedLine(account, endpoint), endpoint));
      }
    },
  );
});
