// Thai bank codes (Bank of Thailand three-digit codes) and their short names.
export const THAI_BANKS: ReadonlyArray<{ code: string; short: string; nameEn: string; nameTh: string }> = [
  { code: '002', short: 'BBL', nameEn: 'Bangkok Bank', nameTh: 'ธนาคารกรุงเทพ' },
  { code: '004', short: 'KBANK', nameEn: 'Kasikornbank', nameTh: 'ธนาคารกสิกรไทย' },
  { code: '006', short: 'KTB', nameEn: 'Krungthai Bank', nameTh: 'ธนาคารกรุงไทย' },
  { code: '011', short: 'TTB', nameEn: 'TMBThanachart Bank', nameTh: 'ธนาคารทหารไทยธนชาต' },
  { code: '014', short: 'SCB', nameEn: 'Siam Commercial Bank', nameTh: 'ธนาคารไทยพาณิชย์' },
  { code: '017', short: 'CITI', nameEn: 'Citibank', nameTh: 'ธนาคารซิตี้แบงก์' },
  { code: '018', short: 'SMBC', nameEn: 'Sumitomo Mitsui Banking Corporation', nameTh: 'ธนาคารซูมิโตโม มิตซุย แบงกิ้ง คอร์ปอเรชั่น' },
  { code: '020', short: 'SCBT', nameEn: 'Standard Chartered Bank (Thai)', nameTh: 'ธนาคารสแตนดาร์ดชาร์เตอร์ด (ไทย)' },
  { code: '022', short: 'CIMBT', nameEn: 'CIMB Thai Bank', nameTh: 'ธนาคารซีไอเอ็มบี ไทย' },
  { code: '024', short: 'UOBT', nameEn: 'United Overseas Bank (Thai)', nameTh: 'ธนาคารยูโอบี' },
  { code: '025', short: 'BAY', nameEn: 'Bank of Ayudhya (Krungsri)', nameTh: 'ธนาคารกรุงศรีอยุธยา' },
  { code: '030', short: 'GSB', nameEn: 'Government Savings Bank', nameTh: 'ธนาคารออมสิน' },
  { code: '031', short: 'HSBC', nameEn: 'HSBC', nameTh: 'ธนาคารฮ่องกงและเซี่ยงไฮ้แบงกิ้งคอร์ปอเรชั่น' },
  { code: '033', short: 'GHB', nameEn: 'Government Housing Bank', nameTh: 'ธนาคารอาคารสงเคราะห์' },
  { code: '034', short: 'BAAC', nameEn: 'Bank for Agriculture and Agricultural Cooperatives', nameTh: 'ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร' },
  { code: '035', short: 'EXIM', nameEn: 'Export-Import Bank of Thailand', nameTh: 'ธนาคารเพื่อการส่งออกและนำเข้าแห่งประเทศไทย' },
  { code: '066', short: 'IBANK', nameEn: 'Islamic Bank of Thailand', nameTh: 'ธนาคารอิสลามแห่งประเทศไทย' },
  { code: '067', short: 'TISCO', nameEn: 'TISCO Bank', nameTh: 'ธนาคารทิสโก้' },
  { code: '069', short: 'KKP', nameEn: 'Kiatnakin Phatra Bank', nameTh: 'ธนาคารเกียรตินาคินภัทร' },
  { code: '070', short: 'ICBCT', nameEn: 'ICBC (Thai)', nameTh: 'ธนาคารไอซีบีซี (ไทย)' },
  { code: '071', short: 'TCD', nameEn: 'Thai Credit Bank', nameTh: 'ธนาคารไทยเครดิต' },
  { code: '073', short: 'LHFG', nameEn: 'Land and Houses Bank', nameTh: 'ธนาคารแลนด์ แอนด์ เฮ้าส์' },
  { code: '098', short: 'SME', nameEn: 'SME Development Bank', nameTh: 'ธนาคารพัฒนาวิสาหกิจขนาดกลางและขนาดย่อมแห่งประเทศไทย' },
];

const byCode = new Map(THAI_BANKS.map((b) => [b.code, b]));
const byShort = new Map(THAI_BANKS.map((b) => [b.short, b]));

/** `014`, `SCB` or `scb` → `014`; anything else → undefined. */
export function normaliseBankCode(value: string): string | undefined {
  const trimmed = value.trim();
  return byCode.get(trimmed)?.code ?? byShort.get(trimmed.toUpperCase())?.code;
}

export function bankByCode(code: string) {
  return byCode.get(code);
}
