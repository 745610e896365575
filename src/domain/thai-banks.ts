// Thai bank codes (Bank of Thailand three-digit codes) and their short names.
export const THAI_BANKS: ReadonlyArray<{ code: string; short: string; nameEn: string; nameTh: string }> = [
  { code: '002', short: 'BBL', nameEn: 'Bangkok Bank', nameTh: 'ธนาคารกรุงเทพ' },
  { code: '004', short: 'KBANK', nameEn: 'Kasikornbank', nameTh: 'ธนาคารกสิกรไทย' },
  { code: '006', short: 'KTB', nameEn: 'Krungthai Bank', nameTh: 'ธนาคารกรุงไทย' },
  { code: '011', short: 'TTB', nameEn: 'TMBThanachart Bank', nameTh: 'ธนาคารทหารไทยธนชาต' },
  { code: '014', short: 'SCB', nameEn: 'Siam Commercial Bank', nameTh: 'ธนาคารไทยพาณิชย์' },
  { code: '017', short: 'CITI', nameEn: 'Citibank', nameTh: 'ธนาคารซิตี้แบงก์' },
  {
    code: '018',
    short: 'SMBC',
    nameEn: 'Sumitomo Mitsui Banking Corporation',
    nameTh: 'ธนาคารซูมิโตโม มิตซุย แบงกิ้ง คอร์ปอเรชั่น',
  },
  { code: '020', short: 'SCBT', nameEn: 'Standard Chartered Bank (Thai)', nameTh: 'ธนาคารสแตนดาร์ดชาร์เตอร์ด (ไทย)' },
  { code: '022', short: 'CIMBT', nameEn: 'CIMB Thai Bank', nameTh: 'ธนาคารซีไอเอ็มบี ไทย' },
  { code: '024', short: 'UOBT', nameEn: 'United Overseas Bank (Thai)', nameTh: 'ธนาคารยูโอบี' },
  { code: '025', short: 'BAY', nameEn: 'Bank of Ayudhya (Krungsri)', nameTh: 'ธนาคารกรุงศรีอยุธยา' },
  { code: '030', short: 'GSB', nameEn: 'Government Savings Bank', nameTh: 'ธนาคารออมสิน' },
  { code: '031', short: 'HSBC', nameEn: 'HSBC', nameTh: 'ธนาคารฮ่องกงและเซี่ยงไฮ้แบงกิ้งคอร์ปอเรชั่น' },
  { code: '033', short: 'GHB', nameEn: 'Government Housing Bank', nameTh: 'ธนาคารอาคารสงเคราะห์' },
  {
    code: '034',
    short: 'BAAC',
    nameEn: 'Bank for Agriculture and Agricultural Cooperatives',
    nameTh: 'ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร',
  },
  {
    code: '035',
    short: 'EXIM',
    nameEn: 'Export-Import Bank of Thailand',
    nameTh: 'ธนาคารเพื่อการส่งออกและนำเข้าแห่งประเทศไทย',
  },
  { code: '066', short: 'IBANK', nameEn: 'Islamic Bank of Thailand', nameTh: 'ธนาคารอิสลามแห่งประเทศไทย' },
  { code: '067', short: 'TISCO', nameEn: 'TISCO Bank', nameTh: 'ธนาคารทิสโก้' },
  { code: '069', short: 'KKP', nameEn: 'Kiatnakin Phatra Bank', nameTh: 'ธนาคารเกียรตินาคินภัทร' },
  { code: '070', short: 'ICBCT', nameEn: 'ICBC (Thai)', nameTh: 'ธนาคารไอซีบีซี (ไทย)' },
  { code: '071', short: 'TCD', nameEn: 'Thai Credit Bank', nameTh: 'ธนาคารไทยเครดิต' },
  { code: '073', short: 'LHFG', nameEn: 'Land and Houses Bank', nameTh: 'ธนาคารแลนด์ แอนด์ เฮ้าส์' },
  {
    code: '098',
    short: 'SME',
    nameEn: 'SME Development Bank',
    nameTh: 'ธนาคารพัฒนาวิสาหกิจขนาดกลางและขนาดย่อมแห่งประเทศไทย',
  },
];

/**
 * Other spellings customers and shop plugins type into a free-text bank field, beyond the code,
 * the short name and the official names above (which are always accepted).
 */
const EXTRA_NAMES: Readonly<Record<string, readonly string[]>> = {
  '002': ['Bualuang', 'Bangkok'],
  '004': ['KBank', 'Kasikorn', 'Kasikorn Thai', 'Kasikorn Thai Bank', 'Thai Farmers Bank', 'TFB', 'กสิกร'],
  '006': ['Krungthai', 'Krung Thai', 'Krung Thai Bank', 'กรุงไทย'],
  '011': [
    'TMB',
    'Thanachart',
    'Thanachart Bank',
    'TMB Thanachart',
    'TMB Bank',
    'ttb bank',
    'ทีทีบี',
    'ทหารไทย',
    'ทหารไทยธนชาต',
  ],
  '014': ['Siam Commercial', 'ไทยพาณิชย์'],
  '017': ['Citi'],
  '020': ['Standard Chartered', 'Standard Chartered Thai'],
  '022': ['CIMB', 'CIMB Thai'],
  '024': ['UOB', 'UOB Thai'],
  '025': ['Krungsri', 'Krungsri Bank', 'Bank of Ayudhya', 'Ayudhya', 'กรุงศรี'],
  '030': ['Aomsin', 'ออมสิน'],
  '033': ['อาคารสงเคราะห์'],
  '034': ['ธกส'],
  '066': ['Islamic Bank', 'Islamic'],
  '069': ['Kiatnakin', 'Kiatnakin Phatra', 'KKP Bank'],
  '070': ['ICBC'],
  '071': ['Thai Credit'],
  '073': ['LH Bank', 'LHB', 'Land and Houses'],
};

/**
 * The comparable form of a free-text bank name: Unicode-compatibility folded, lower case, only
 * letters (with Thai vowel and tone marks) and digits, so `K-Bank`, `k bank` and `KBANK` meet.
 */
export function bankNameKey(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]/gu, '');
}

/** A name also matches without a leading "ธนาคาร" or a trailing "bank" / "public company limited". */
function keyVariants(key: string): string[] {
  const variants = new Set([key]);
  for (const v of [...variants]) variants.add(v.replace(/(publiccompanylimited|pcl|plc)$/u, ''));
  for (const v of [...variants]) variants.add(v.replace(/bank$/u, '')).add(v.replace(/^ธนาคาร/u, ''));
  return [...variants].filter((v) => v.length > 0);
}

const byCode = new Map(THAI_BANKS.map((b) => [b.code, b]));
const byName = new Map<string, string>();
for (const bank of THAI_BANKS) {
  for (const name of [bank.short, bank.nameEn, bank.nameTh, ...(EXTRA_NAMES[bank.code] ?? [])]) {
    for (const key of keyVariants(bankNameKey(name))) {
      const taken = byName.get(key);
      // A name that could mean two banks must not silently pick one.
      if (taken !== undefined && taken !== bank.code)
        throw new Error(`thai-banks: the name '${name}' matches both ${taken} and ${bank.code}`);
      byName.set(key, bank.code);
    }
  }
}

/**
 * `014`, `SCB`, `scb`, `Siam Commercial Bank`, `K-Bank`, `Krung Thai Bank`, `ไทยพาณิชย์` → the
 * three-digit code; anything else → undefined. Codes must be exact (three digits); names are
 * compared case-, space- and punctuation-insensitively.
 */
export function normaliseBankCode(value: string): string | undefined {
  const trimmed = value.trim();
  const code = byCode.get(trimmed)?.code;
  if (code !== undefined) return code;
  if (trimmed.length > 100) return undefined;
  for (const key of keyVariants(bankNameKey(trimmed))) {
    const found = byName.get(key);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function bankByCode(code: string) {
  return byCode.get(code);
}
