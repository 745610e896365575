// Every API request carries the merchant's credentials in its body (docs/api.md, top).
import type { MerchantRecord } from '../../domain/merchant.ts';
import { credentialsOf, type JsonObject } from '../edge/request-body.ts';

/** The merchant directory's check of merchantid + password; failures are counted per client address. */
export type Authenticate = (merchantId: string, password: string, clientAddress: string) => MerchantRecord;

/** The merchant whose credentials `body` carries, or the directory's refusal (thrown). */
export function merchantOf(
  authenticate: Authenticate,
  body: JsonObject,
  clientAddress: string | undefined,
): MerchantRecord {
  const { merchantId, password } = credentialsOf(body);
  return authenticate(merchantId, password, String(clientAddress));
}
