import type { Services } from '../../app/services.ts';
import type { MerchantRecord } from '../../domain/merchant.ts';
import { credentialsOf, type JsonObject } from '../request-body.ts';

/** Credentials in the body [spec]; failed attempts are counted per client address. */
export function authenticate(services: Services, body: JsonObject, clientAddress: string | undefined): MerchantRecord {
  const { merchantId, password } = credentialsOf(body);
  return services.directory.authenticate(merchantId, password, String(clientAddress));
}
