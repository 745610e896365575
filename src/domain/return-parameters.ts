// The parameters appended to the merchant's return URL (docs/hosted-page.md "Back to the
// merchant"): the five result parameters, then `ts` and `signature`, which sign them with the
// merchant's webhook secrets in the scheme of packages/client/src/return-signature.ts (the one
// implementation, which merchants verify with).
import { signReturn, type ReturnParameters } from '../../packages/client/src/return-signature.ts';
import { RESPONSE_CODE, RESULT_TEXT } from './lifecycle.ts';
import type { TransactionRecord } from './transaction.ts';

export const SUCCESS_DESCRIPTION = 'The payment was captured.';

export type FinalResult = Pick<TransactionRecord, 'status' | 'trackid' | 'id' | 'errorText'>;

/** The result parameters, in the order they are appended and signed. */
export function resultParameters(t: FinalResult): ReturnParameters {
  if (t.status === 'PROCESSING') throw new Error('a PROCESSING transaction has no result to return');
  return {
    result: RESULT_TEXT[t.status],
    responsecode: RESPONSE_CODE[t.status],
    trackid: t.trackid,
    transactionid: t.id,
    responsedescription: t.status === 'SUCCESS' ? SUCCESS_DESCRIPTION : (t.errorText ?? RESULT_TEXT.FAILED),
  };
}

/** `ts` (Unix seconds of `nowMs`) and `signature` over the result parameters, appended after them. */
export function returnSignatureParameters(
  t: FinalResult,
  secrets: readonly string[],
  nowMs: number,
): Array<[string, string]> {
  const ts = Math.floor(nowMs / 1000);
  return [
    ['ts', String(ts)],
    ['signature', signReturn(secrets, resultParameters(t), ts)],
  ];
}
