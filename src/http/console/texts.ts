// Everything the console says, in Thai and English. One table per language with the same keys
// (the type enforces it), like the hosted page's texts.
import type { SandboxOutcome } from '../../domain/lifecycle.ts';
import type { PayerCheck, PayerMismatchPolicy } from '../../domain/payer-check.ts';
import type { TransferPaidBy } from '../../domain/refund.ts';
import type { AttentionKind, ProcessorAttemptKind, ProcessorAttemptState } from '../../domain/processor-attempt.ts';

export type ConsoleLang = 'th' | 'en';

export type ConsoleTexts = {
  title: string;
  languageName: string;
  switchTo: string;
  nav: {
    payments: string;
    deliveries: string;
    balances: string;
    attention: string;
    merchants: string;
    audit: string;
    logout: string;
  };
  signedInAs: (name: string, role: string) => string;
  role: { operator: string; merchant: string };
  login: {
    heading: string;
    as: string;
    operator: string;
    merchant: string;
    username: string;
    merchantid: string;
    password: string;
    totp: string;
    totpHint: string;
    submit: string;
    failed: string;
    disabled: string;
    throttled: string;
    loggedOut: string;
    expired: string;
  };
  payments: {
    heading: string;
    search: string;
    searchHint: string;
    amount: string;
    state: string;
    anyState: string;
    from: string;
    to: string;
    merchant: string;
    submit: string;
    clear: string;
    none: string;
    next: string;
    first: string;
    created: string;
    trackid: string;
    transactionid: string;
    email: string;
  };
  states: Record<'PROCESSING' | 'SUCCESS' | 'FAILED', string>;
  /** Beside a SUCCESS payment's state once money went back. */
  refundStates: { full: string; partial: string };
  detail: {
    heading: string;
    summary: string;
    expires: string;
    completed: string;
    reason: string;
    customerIp: string;
    payerBank: string;
    payerAccount: string;
    payerName: string;
    /** The payer check's verdict (docs/console.md "Payer check"). */
    payerCheck: string;
    payerChecks: Record<PayerCheck, string>;
    /** Shown while the payer check holds the payment for an operator. */
    payerHeld: string;
    description: string;
    serverUrl: string;
    returnUrl: string;
    timeline: string;
    initiated: string;
    cause: Record<string, string>;
    notification: string;
    noNotification: string;
    event: string;
    deliveryStatus: string;
    series: string;
    attempts: string;
    /** Beside the total when a resend started a new series: the current series' own count. */
    inThisSeries: (n: number) => string;
    nextAttempt: string;
    lastError: string;
    attemptNo: string;
    started: string;
    result: string;
    latency: string;
    response: string;
    noAttempts: string;
    resend: string;
    resent: (series: number) => string;
    ledger: string;
    noLedger: string;
    account: string;
    balanceAfter: string;
    sandbox: string;
    sandboxHint: string;
    outcome: string;
    outcomes: Record<SandboxOutcome, string>;
    complete: string;
    completed_: string;
    back: string;
    refunds: string;
    noRefunds: string;
    refundId: string;
    refundedTotal: string;
    refundable: string;
    refundReason: string;
    refundReference: string;
    refundSubmit: string;
    refundHint: string;
    refundDone: (id: string) => string;
    /** How a refund's money reached the payer (the refunds table). */
    paidBy: string;
    paidByTransfer: (payer: TransferPaidBy, reference: string) => string;
    /** A refund recorded as paid by bank transfer (docs/console.md "Pages"). */
    transferTitle: string;
    transferHint: string;
    transferReference: string;
    transferSent: string;
    /** Who sent the transfer (the radio), and each choice. */
    transferPaidBy: string;
    transferPayer: Record<TransferPaidBy, string>;
    transferSubmit: string;
    transferDone: (id: string) => string;
    transferAgain: (id: string) => string;
    /** The confirmation step between the refund form and the refund. */
    confirmTitle: string;
    confirmLead: string;
    confirmAmount: string;
    refundableAfter: string;
    confirmSubmit: (amount: string) => string;
    confirmCancel: string;
    /** The timeline's row of a refund. */
    refundedEvent: (id: string) => string;
    whatHappened: string;
    processor: string;
    attemptKind: string;
    attemptKinds: Record<ProcessorAttemptKind, string>;
    reference: string;
    since: string;
    attemptStates: Record<ProcessorAttemptState, string>;
    processorTxnNo: string;
    paidAmount: string;
    qrExpires: string;
    processorNotifications: string;
    received: string;
    source: string;
    notificationOutcome: string;
    body: string;
    attention: string;
    attentionOpen: string;
    attentionResolved: (by: string, at: string) => string;
    attentionResolveHint: string;
  };
  attention: {
    heading: string;
    intro: string;
    open: string;
    resolved: string;
    noneOpen: string;
    noneResolved: string;
    raised: string;
    payment: string;
    kind: string;
    kinds: Record<AttentionKind, string>;
    /** A payer_mismatch item is resolved by a decision: accept (SUCCESS) or decline (FAILED). */
    accept: string;
    decline: string;
    decisionHint: string;
    decided: (id: string, decision: 'accept' | 'decline') => string;
    detail: string;
    amount: string;
    reference: string;
    note: string;
    resolve: string;
    resolvedBy: string;
    resolvedAt: string;
    resolution: string;
    done: (id: string) => string;
    already: string;
  };
  deliveries: {
    heading: string;
    /** The default tab: failed, and pending after a failed attempt. */
    attention: string;
    failed: string;
    pending: string;
    delivered: string;
    all: string;
    none: string;
    payment: string;
  };
  delivery: Record<'pending' | 'delivered' | 'failed', string>;
  balances: {
    heading: string;
    chooseMerchant: string;
    show: string;
    payoutAccount: string;
    balance: string;
    postings: string;
    noPostings: string;
    exportCsv: string;
    entry: string;
    kind: string;
    reasonCol: string;
    payment: string;
  };
  merchants: {
    heading: string;
    create: string;
    name: string;
    payoutCurrency: string;
    payoutAccount: string;
    id: string;
    idHint: string;
    feeRate: string;
    feeRateHint: string;
    submit: string;
    status: string;
    actions: string;
    disable: string;
    enable: string;
    rotatePassword: string;
    rotateWebhook: string;
    consolePassword: string;
    hasConsole: string;
    none: string;
    secretsOnce: string;
    created: string;
    rotatedPassword: string;
    rotatedWebhook: string;
    previousUntil: (when: string) => string;
    previousDropped: string;
    issuedConsole: string;
    statusChanged: string;
    statusName: Record<'active' | 'disabled', string>;
    back: string;
    payerMismatch: string;
    payerMismatchHint: string;
    payerMismatchNames: Record<PayerMismatchPolicy, string>;
    setPayerMismatch: string;
    payerMismatchChanged: string;
  };
  audit: {
    heading: string;
    at: string;
    who: string;
    action: string;
    target: string;
    details: string;
    from: string;
    none: string;
  };
  errors: {
    notFoundTitle: string;
    notFoundBody: string;
    forbiddenTitle: string;
    forbiddenBody: string;
    badRequestTitle: string;
    badRequestBody: string;
    errorTitle: string;
    errorBody: string;
    back: string;
  };
};

const th: ConsoleTexts = {
  title: 'คอนโซลเกตเวย์',
  languageName: 'ไทย',
  switchTo: 'English',
  nav: {
    payments: 'รายการชำระเงิน',
    deliveries: 'การแจ้งผล',
    balances: 'ยอดคงเหลือ',
    attention: 'ต้องตรวจสอบ',
    merchants: 'ร้านค้า',
    audit: 'บันทึกการใช้งาน',
    logout: 'ออกจากระบบ',
  },
  signedInAs: (name, role) => `เข้าสู่ระบบเป็น ${name} (${role})`,
  role: { operator: 'ผู้ดูแลระบบ', merchant: 'ร้านค้า' },
  login: {
    heading: 'เข้าสู่ระบบคอนโซล',
    as: 'เข้าสู่ระบบในฐานะ',
    operator: 'ผู้ดูแลระบบ',
    merchant: 'ร้านค้า',
    username: 'ชื่อผู้ใช้ (ผู้ดูแลระบบ) หรือ merchantid (ร้านค้า)',
    merchantid: 'merchantid',
    password: 'รหัสผ่าน',
    totp: 'รหัสยืนยัน 6 หลัก',
    totpHint: 'จากแอป Authenticator หากเปิดใช้งานไว้',
    submit: 'เข้าสู่ระบบ',
    failed: 'ข้อมูลเข้าสู่ระบบไม่ถูกต้อง',
    disabled: 'บัญชีนี้ถูกระงับการใช้งาน',
    throttled: 'พยายามเข้าสู่ระบบผิดหลายครั้งเกินไป กรุณารอสักครู่แล้วลองใหม่',
    loggedOut: 'ออกจากระบบแล้ว',
    expired: 'เซสชันหมดอายุ กรุณาเข้าสู่ระบบอีกครั้ง',
  },
  payments: {
    heading: 'รายการชำระเงิน',
    search: 'ค้นหา',
    searchHint: 'trackid, transactionid หรืออีเมล',
    amount: 'จำนวนเงิน',
    state: 'สถานะ',
    anyState: 'ทุกสถานะ',
    from: 'ตั้งแต่วันที่',
    to: 'ถึงวันที่',
    merchant: 'ร้านค้า',
    submit: 'ค้นหา',
    clear: 'ล้าง',
    none: 'ไม่พบรายการที่ตรงกับการค้นหา',
    next: 'หน้าถัดไป (เก่ากว่า)',
    first: 'หน้าแรก',
    created: 'สร้างเมื่อ',
    trackid: 'trackid',
    transactionid: 'transactionid',
    email: 'อีเมล',
  },
  states: { PROCESSING: 'กำลังดำเนินการ', SUCCESS: 'สำเร็จ', FAILED: 'ไม่สำเร็จ' },
  refundStates: { full: 'คืนเงินแล้ว', partial: 'คืนเงินบางส่วน' },
  detail: {
    heading: 'รายละเอียดการชำระเงิน',
    summary: 'ข้อมูลสรุป',
    expires: 'หมดอายุ',
    completed: 'เสร็จสิ้นเมื่อ',
    reason: 'เหตุผล',
    customerIp: 'IP ลูกค้า',
    payerBank: 'ธนาคารผู้ชำระ',
    payerAccount: 'บัญชีผู้ชำระ',
    payerName: 'ชื่อผู้ชำระ',
    payerCheck: 'ตรวจสอบบัญชีผู้ชำระ',
    payerChecks: { matched: 'ตรงกัน', mismatched: 'ไม่ตรงกัน', unknown: 'ไม่ทราบ' },
    payerHeld: 'ชำระแล้วจากบัญชีอื่น: รอผู้ดูแลระบบตัดสินใจที่หน้า "ต้องตรวจสอบ"',
    description: 'รายการ',
    serverUrl: 'serverUrl (แจ้งผล)',
    returnUrl: 'returnUrl',
    timeline: 'ลำดับเหตุการณ์',
    initiated: 'สร้างรายการ',
    cause: {
      confirm: 'ลูกค้ายืนยัน',
      cancel: 'ลูกค้ายกเลิก',
      expire: 'หมดเวลา',
      sandbox: 'ทดสอบ (sandbox)',
      processor_paid: 'ชำระแล้วที่ผู้ให้บริการชำระเงิน',
      payer_accepted: 'ผู้ดูแลระบบยอมรับผู้ชำระ',
      payer_declined: 'ผู้ดูแลระบบปฏิเสธผู้ชำระ',
    },
    notification: 'การแจ้งผลไปยังร้านค้า',
    noNotification: 'ยังไม่มีการแจ้งผล (รายการยังไม่สิ้นสุด)',
    event: 'event id',
    deliveryStatus: 'สถานะการส่ง',
    series: 'รอบ',
    attempts: 'จำนวนครั้ง',
    inThisSeries: (n) => `(${n} ครั้งในรอบนี้)`,
    nextAttempt: 'ส่งครั้งถัดไป',
    lastError: 'ข้อผิดพลาดล่าสุด',
    attemptNo: 'ครั้งที่',
    started: 'เริ่มเมื่อ',
    result: 'ผลลัพธ์',
    latency: 'เวลา (ms)',
    response: 'คำตอบ (บางส่วน)',
    noAttempts: 'ยังไม่มีการส่ง',
    resend: 'ส่งการแจ้งผลอีกครั้ง',
    resent: (series) => `ส่งการแจ้งผลอีกครั้งแล้ว (รอบที่ ${series})`,
    ledger: 'รายการบัญชี',
    noLedger: 'ไม่มีรายการบัญชี',
    account: 'บัญชี',
    balanceAfter: 'ยอดหลังรายการ',
    sandbox: 'เครื่องมือทดสอบ (Sandbox)',
    sandboxHint: 'จบรายการนี้ด้วยผลที่เลือก ไม่มีการตัดเงินจริง',
    outcome: 'ผลลัพธ์',
    outcomes: { success: 'สำเร็จ', failed: 'ถูกปฏิเสธ', cancelled: 'ยกเลิก', expired: 'หมดอายุ' },
    complete: 'จบรายการ',
    completed_: 'จบรายการแล้ว',
    back: 'กลับไปที่รายการชำระเงิน',
    refunds: 'การคืนเงิน',
    noRefunds: 'ยังไม่มีการคืนเงิน',
    refundId: 'refund id',
    refundedTotal: 'คืนเงินแล้วทั้งหมด',
    refundable: 'คืนเงินได้อีก',
    refundReason: 'เหตุผล (ไม่บังคับ)',
    refundReference: 'อ้างอิง',
    refundSubmit: 'คืนเงิน',
    refundHint: 'คืนเงินบางส่วนหรือทั้งหมด หักจากยอดคงเหลือของร้านค้า และแจ้งร้านค้าด้วยการแจ้งผลแบบ refund',
    refundDone: (id) => `คืนเงินแล้ว (${id})`,
    paidBy: 'คืนเงินผ่าน',
    paidByTransfer: (payer, reference) =>
      `${payer === 'gateway' ? 'เกตเวย์' : 'ร้านค้า'}โอนเงินผ่านธนาคาร เลขอ้างอิง ${reference}`,
    transferTitle: 'บันทึกการคืนเงินที่โอนผ่านธนาคารแล้ว',
    transferHint:
      'ใช้เฉพาะเมื่อโอนเงินคืนผู้จ่ายผ่านธนาคารไปแล้ว เพราะผู้ให้บริการชำระเงินคืนเงินรายการนี้ไม่ได้ ' +
      '(เช่น KBank หลังช่วงเวลายกเลิกรายการ) การบันทึกนี้ไม่มีการโอนเงินใด ๆ: บันทึกการคืนเงินพร้อมเลขอ้างอิงการโอน ' +
      'หักจากยอดคงเหลือของร้านค้าเฉพาะเมื่อเกตเวย์เป็นผู้โอนจากเงินของร้านค้า และแจ้งร้านค้าด้วยการแจ้งผลแบบ refund',
    transferReference: 'เลขอ้างอิงการโอน',
    transferSent: 'ฉันโอนเงินจำนวนนี้คืนผู้จ่ายผ่านธนาคารแล้ว',
    transferPaidBy: 'ใครเป็นผู้โอน',
    transferPayer: {
      gateway: 'ผู้ดูแลเกตเวย์ โอนจากเงินของร้านค้าที่เกตเวย์ถืออยู่ (หักจากยอดคงเหลือของร้านค้า)',
      merchant: 'ร้านค้า โอนจากบัญชีของร้านค้าเอง (ยอดคงเหลือไม่เปลี่ยน)',
    },
    transferSubmit: 'บันทึกการคืนเงิน (ไม่มีการโอนเงิน)',
    transferDone: (id) => `บันทึกการคืนเงินที่โอนผ่านธนาคารแล้ว (${id})`,
    transferAgain: (id) => `การโอนนี้ถูกบันทึกไว้แล้ว (${id}) ไม่ได้บันทึกซ้ำ`,
    confirmTitle: 'ยืนยันการคืนเงิน',
    confirmLead: 'ตรวจสอบจำนวนเงินก่อนยืนยัน เมื่อคืนเงินแล้วจะยกเลิกไม่ได้',
    confirmAmount: 'จำนวนเงินที่จะคืน',
    refundableAfter: 'คืนเงินได้อีกหลังจากนี้',
    confirmSubmit: (amount) => `ยืนยันคืนเงิน ${amount}`,
    confirmCancel: 'ยกเลิก',
    refundedEvent: (id) => `คืนเงิน ${id}`,
    whatHappened: 'เหตุการณ์',
    processor: 'ที่ผู้ให้บริการชำระเงิน',
    attemptKind: 'ประเภท',
    attemptKinds: { qr: 'สร้าง QR', void: 'ยกเลิกรายการ (void)' },
    reference: 'อ้างอิง',
    since: 'เมื่อ',
    attemptStates: {
      pending: 'รอผล',
      requested: 'รอชำระ',
      paid: 'ชำระแล้ว',
      cancelled: 'ยกเลิกแล้ว',
      expired: 'หมดอายุ',
      voided: 'ยกเลิกรายการแล้ว (void)',
      not_found: 'ไม่พบที่ผู้ให้บริการ',
      failed: 'ถูกปฏิเสธ',
    },
    processorTxnNo: 'เลขที่รายการของผู้ให้บริการ',
    paidAmount: 'ยอดที่ชำระ',
    qrExpires: 'QR หมดอายุ',
    processorNotifications: 'การแจ้งเตือนจากผู้ให้บริการ',
    received: 'ได้รับเมื่อ',
    source: 'จาก',
    notificationOutcome: 'ผลการตรวจ',
    body: 'เนื้อหา (บางส่วน)',
    attention: 'ต้องตรวจสอบ',
    attentionOpen: 'ยังไม่ได้แก้ไข',
    attentionResolved: (by, at) => `แก้ไขแล้วโดย ${by} เมื่อ ${at}`,
    attentionResolveHint: 'บันทึกการแก้ไขได้ที่หน้า "ต้องตรวจสอบ"',
  },
  attention: {
    heading: 'ต้องตรวจสอบ',
    intro:
      'รายการชำระเงินที่ระบบจัดการเองไม่ได้ เช่น ลูกค้าชำระเงินหลังรายการสิ้นสุดแล้วและยกเลิกอัตโนมัติไม่ได้ ' +
      'หรือยอดที่ชำระไม่ตรงกับรายการ ดำเนินการกับผู้ให้บริการหรือร้านค้า แล้วบันทึกสิ่งที่ทำ',
    open: 'ยังไม่ได้แก้ไข',
    resolved: 'แก้ไขแล้ว',
    noneOpen: 'ไม่มีรายการที่ต้องตรวจสอบ',
    noneResolved: 'ยังไม่มีรายการที่แก้ไขแล้ว',
    raised: 'แจ้งเมื่อ',
    payment: 'การชำระเงิน',
    kind: 'ประเภท',
    kinds: {
      paid_after_final: 'ชำระหลังรายการสิ้นสุด',
      amount_mismatch: 'ยอดเงินไม่ตรงกัน',
      void_unknown: 'ไม่ทราบผลการยกเลิก (void)',
      void_failed: 'ยกเลิก (void) ไม่สำเร็จ',
      payer_mismatch: 'ผู้ชำระไม่ตรงกับที่ระบุ',
      paid_twice: 'ชำระซ้ำ',
    },
    accept: 'ยอมรับ (ชำระสำเร็จ)',
    decline: 'ปฏิเสธ (ไม่สำเร็จ คืนเงินผู้ชำระด้วยการโอน)',
    decisionHint:
      'ยอมรับ: รายการชำระสำเร็จ ร้านค้าได้รับเงินและการแจ้งผล ปฏิเสธ: รายการไม่สำเร็จ (DECLINED) ' + 'และต้องโอนเงินคืนผู้ชำระ',
    decided: (id, decision) => `${id}: ${decision === 'accept' ? 'ยอมรับแล้ว' : 'ปฏิเสธแล้ว'}`,
    detail: 'รายละเอียด',
    amount: 'ยอดที่ผู้ให้บริการแจ้ง',
    reference: 'อ้างอิง',
    note: 'สิ่งที่ดำเนินการแล้ว (จำเป็น)',
    resolve: 'บันทึกว่าแก้ไขแล้ว',
    resolvedBy: 'แก้ไขโดย',
    resolvedAt: 'แก้ไขเมื่อ',
    resolution: 'บันทึก',
    done: (id) => `บันทึกว่า ${id} แก้ไขแล้ว`,
    already: 'รายการนี้ถูกบันทึกว่าแก้ไขแล้ว ไม่มีการเปลี่ยนแปลง',
  },
  deliveries: {
    heading: 'การแจ้งผล',
    attention: 'ต้องตรวจสอบ',
    failed: 'ล้มเหลว',
    pending: 'รอส่ง',
    delivered: 'ส่งสำเร็จ',
    all: 'ทั้งหมด',
    none: 'ไม่มีรายการ',
    payment: 'การชำระเงิน',
  },
  delivery: { pending: 'รอส่ง', delivered: 'ส่งสำเร็จ', failed: 'ล้มเหลว' },
  balances: {
    heading: 'ยอดคงเหลือและรายการบัญชี',
    chooseMerchant: 'เลือกร้านค้า',
    show: 'แสดง',
    payoutAccount: 'บัญชีรับเงิน',
    balance: 'ยอดคงเหลือ',
    postings: 'รายการบัญชี',
    noPostings: 'ยังไม่มีรายการ',
    exportCsv: 'ส่งออก CSV',
    entry: 'รายการ',
    kind: 'ประเภท',
    reasonCol: 'คำอธิบาย',
    payment: 'การชำระเงิน',
  },
  merchants: {
    heading: 'ร้านค้า',
    create: 'สร้างร้านค้าใหม่',
    name: 'ชื่อร้านค้า',
    payoutCurrency: 'สกุลเงินรับเงิน',
    payoutAccount: 'เลขบัญชีรับเงิน',
    id: 'merchantid',
    idHint: 'เว้นว่างเพื่อสร้างให้อัตโนมัติ',
    feeRate: 'อัตราค่าธรรมเนียม',
    feeRateHint: 'เช่น 0.025 สำหรับ 2.5%',
    submit: 'สร้างร้านค้า',
    status: 'สถานะ',
    actions: 'การจัดการ',
    disable: 'ระงับ',
    enable: 'เปิดใช้งาน',
    rotatePassword: 'ออกรหัสผ่าน API ใหม่',
    rotateWebhook: 'ออก webhook secret ใหม่',
    consolePassword: 'ออกรหัสผ่านคอนโซล',
    hasConsole: 'มีรหัสผ่านคอนโซล',
    none: 'ยังไม่มีร้านค้า',
    secretsOnce: 'เก็บข้อมูลนี้ไว้ตอนนี้ ระบบจะไม่แสดงอีก',
    created: 'สร้างร้านค้าแล้ว',
    rotatedPassword: 'รหัสผ่าน API ใหม่ (รหัสเดิมใช้ไม่ได้แล้ว)',
    rotatedWebhook: 'webhook secret ใหม่',
    previousUntil: (when) => `secret เดิมยังใช้ลงนามได้จนถึง ${when}`,
    previousDropped: 'secret เดิมเปิดด้วยคีย์นี้ไม่ได้และถูกยกเลิก มีเพียง secret ใหม่ที่ใช้ลงนาม',
    issuedConsole: 'รหัสผ่านคอนโซลของร้านค้า',
    statusChanged: 'เปลี่ยนสถานะแล้ว',
    statusName: { active: 'ใช้งาน', disabled: 'ระงับ' },
    payerMismatch: 'ผู้ชำระไม่ตรงกัน',
    payerMismatchHint: 'เมื่อบัญชีที่ชำระไม่ใช่บัญชีที่ระบุ',
    payerMismatchNames: { record: 'บันทึกและชำระสำเร็จ', hold: 'พักไว้ให้ผู้ดูแลตัดสินใจ' },
    setPayerMismatch: 'บันทึก',
    payerMismatchChanged: 'เปลี่ยนการจัดการผู้ชำระไม่ตรงกันแล้ว',
    back: 'กลับไปที่รายชื่อร้านค้า',
  },
  audit: {
    heading: 'บันทึกการใช้งาน',
    at: 'เวลา',
    who: 'ผู้ดำเนินการ',
    action: 'การกระทำ',
    target: 'เป้าหมาย',
    details: 'รายละเอียด',
    from: 'จาก',
    none: 'ยังไม่มีบันทึก',
  },
  errors: {
    notFoundTitle: 'ไม่พบหน้านี้',
    notFoundBody: 'ไม่มีรายการนี้ หรือคุณไม่มีสิทธิ์เข้าถึง',
    forbiddenTitle: 'ไม่สามารถดำเนินการได้',
    forbiddenBody: 'แบบฟอร์มหมดอายุหรือไม่ได้ส่งมาจากคอนโซล กรุณาเปิดหน้าเดิมอีกครั้งแล้วลองใหม่',
    badRequestTitle: 'ข้อมูลไม่ถูกต้อง',
    badRequestBody: 'อ่านคำขอนี้ไม่ได้ กรุณาเปิดหน้าเดิมอีกครั้งแล้วลองใหม่',
    errorTitle: 'ระบบขัดข้องชั่วคราว',
    errorBody: 'ยังไม่มีการเปลี่ยนแปลงใด ๆ กรุณาลองใหม่อีกครั้ง',
    back: 'กลับ',
  },
};

const en: ConsoleTexts = {
  title: 'Gateway console',
  languageName: 'English',
  switchTo: 'ภาษาไทย',
  nav: {
    payments: 'Payments',
    deliveries: 'Notifications',
    balances: 'Balances',
    attention: 'Needs attention',
    merchants: 'Merchants',
    audit: 'Audit log',
    logout: 'Log out',
  },
  signedInAs: (name, role) => `Signed in as ${name} (${role})`,
  role: { operator: 'operator', merchant: 'merchant' },
  login: {
    heading: 'Log in to the console',
    as: 'Log in as',
    operator: 'Operator',
    merchant: 'Merchant',
    username: 'Username (operator) or merchantid (merchant)',
    merchantid: 'merchantid',
    password: 'Password',
    totp: '6-digit code',
    totpHint: 'From your authenticator app, if you enrolled one',
    submit: 'Log in',
    failed: 'Those details are not right.',
    disabled: 'This account is disabled.',
    throttled: 'Too many failed logins. Wait a few minutes, then try again.',
    loggedOut: 'You are logged out.',
    expired: 'Your session ended. Please log in again.',
  },
  payments: {
    heading: 'Payments',
    search: 'Search',
    searchHint: 'trackid, transactionid or e-mail',
    amount: 'Amount',
    state: 'State',
    anyState: 'Any state',
    from: 'From',
    to: 'To',
    merchant: 'Merchant',
    submit: 'Search',
    clear: 'Clear',
    none: 'No payments match.',
    next: 'Next page (older)',
    first: 'First page',
    created: 'Created',
    trackid: 'trackid',
    transactionid: 'transactionid',
    email: 'E-mail',
  },
  states: { PROCESSING: 'Processing', SUCCESS: 'Success', FAILED: 'Failed' },
  refundStates: { full: 'Refunded', partial: 'Partially refunded' },
  detail: {
    heading: 'Payment',
    summary: 'Summary',
    expires: 'Expires',
    completed: 'Completed',
    reason: 'Reason',
    customerIp: 'Customer IP',
    payerBank: "Payer's bank",
    payerAccount: "Payer's account",
    payerName: "Payer's name",
    payerCheck: 'Payer check',
    payerChecks: { matched: 'matched', mismatched: 'mismatched', unknown: 'unknown' },
    payerHeld: "Paid from another account: held for an operator's decision on the Needs attention page.",
    description: 'Description',
    serverUrl: 'serverUrl (notifications)',
    returnUrl: 'returnUrl',
    timeline: 'Timeline',
    initiated: 'Initiated',
    cause: {
      confirm: 'customer confirmed',
      cancel: 'customer cancelled',
      expire: 'expired',
      sandbox: 'sandbox completion',
      processor_paid: 'paid at the processor',
      payer_accepted: 'payer accepted by an operator',
      payer_declined: 'payer declined by an operator',
    },
    notification: 'Notification to the merchant',
    noNotification: 'No notification yet (the payment is not final).',
    event: 'Event id',
    deliveryStatus: 'Delivery',
    series: 'Series',
    attempts: 'Attempts',
    inThisSeries: (n) => `(${n} in this series)`,
    nextAttempt: 'Next attempt',
    lastError: 'Last error',
    attemptNo: '#',
    started: 'Started',
    result: 'Result',
    latency: 'Latency (ms)',
    response: 'Response (excerpt)',
    noAttempts: 'No attempts yet.',
    resend: 'Resend notification',
    resent: (series) => `Notification queued again (series ${series}).`,
    ledger: 'Ledger postings',
    noLedger: 'No ledger postings.',
    account: 'Account',
    balanceAfter: 'Balance after',
    sandbox: 'Sandbox tools',
    sandboxHint: 'End this payment with the outcome you choose. No money moves.',
    outcome: 'Outcome',
    outcomes: { success: 'Success', failed: 'Declined', cancelled: 'Cancelled', expired: 'Expired' },
    complete: 'Complete payment',
    completed_: 'Payment completed.',
    back: 'Back to payments',
    refunds: 'Refunds',
    noRefunds: 'No refunds.',
    refundId: 'Refund id',
    refundedTotal: 'Refunded in total',
    refundable: 'Still refundable',
    refundReason: 'Reason (optional)',
    refundReference: 'Reference',
    refundSubmit: 'Refund',
    refundHint:
      "Refund part or all of the payment. It is taken from the merchant's balance and the merchant gets a refund notification.",
    refundDone: (id) => `Refunded (${id}).`,
    paidBy: 'Paid by',
    paidByTransfer: (payer, reference) => `Bank transfer by the ${payer}, reference ${reference}`,
    transferTitle: 'Record a bank-transfer refund',
    transferHint:
      'Only for money ALREADY sent back to the payer by bank transfer, because the processor cannot refund ' +
      "this payment (KBank after its void window, a processor that makes no refunds). Recording moves no money: it records the refund with the transfer's reference and who sent it, takes the amount from the merchant's " +
      "balance only when the gateway's operator sent it from the merchant's funds, and sends the refund notification.",
    transferReference: 'Bank transfer reference',
    transferSent: 'I have already sent this money to the payer by bank transfer',
    transferPaidBy: 'Who sent the transfer',
    transferPayer: {
      gateway:
        "The gateway's operator, from the merchant's funds the gateway holds (taken from the merchant's balance)",
      merchant: "The merchant, from its own bank account (the merchant's balance does not change)",
    },
    transferSubmit: 'Record the refund (moves no money)',
    transferDone: (id) => `Bank-transfer refund recorded (${id}).`,
    transferAgain: (id) => `This transfer was already recorded (${id}); nothing was recorded again.`,
    confirmTitle: 'Confirm the refund',
    confirmLead: 'Check the amount before you confirm: a refund cannot be undone.',
    confirmAmount: 'Amount to refund',
    refundableAfter: 'Still refundable after it',
    confirmSubmit: (amount) => `Refund ${amount}`,
    confirmCancel: 'Cancel',
    refundedEvent: (id) => `Refund ${id}`,
    whatHappened: 'What happened',
    processor: 'At the processor',
    attemptKind: 'Kind',
    attemptKinds: { qr: 'QR', void: 'void' },
    reference: 'Reference',
    since: 'Since',
    attemptStates: {
      pending: 'pending',
      requested: 'requested',
      paid: 'paid',
      cancelled: 'cancelled',
      expired: 'expired',
      voided: 'voided',
      not_found: 'not found',
      failed: 'refused',
    },
    processorTxnNo: "Processor's payment number",
    paidAmount: 'Paid',
    qrExpires: 'QR expires',
    processorNotifications: 'Notifications from the processor',
    received: 'Received',
    source: 'From',
    notificationOutcome: 'Outcome',
    body: 'Body (excerpt)',
    attention: 'Needs attention',
    attentionOpen: 'open',
    attentionResolved: (by, at) => `resolved by ${by} at ${at}`,
    attentionResolveHint: 'Record what was done on the Needs attention page.',
  },
  attention: {
    heading: 'Needs attention',
    intro:
      'Payments the gateway could not settle by itself: money paid at the processor after the payment ended ' +
      'that could not be voided, or an amount that does not match. Sort it out with the processor or the ' +
      'merchant, then record what was done.',
    open: 'Open',
    resolved: 'Resolved',
    noneOpen: 'Nothing needs attention.',
    noneResolved: 'Nothing resolved yet.',
    raised: 'Raised',
    payment: 'Payment',
    kind: 'Kind',
    kinds: {
      paid_after_final: 'paid after the payment ended',
      amount_mismatch: 'amount does not match',
      void_unknown: 'void outcome unknown',
      void_failed: 'void failed',
      payer_mismatch: 'paid by another payer',
      paid_twice: 'paid more than once',
    },
    accept: 'Accept (the payment succeeds)',
    decline: 'Decline (it fails; return the money by bank transfer)',
    decisionHint:
      'Accept: the payment completes as SUCCESS, the merchant is credited and notified. Decline: it fails ' +
      "(DECLINED), and the payer's money must be returned by bank transfer.",
    decided: (id, decision) => `${id}: the payer was ${decision === 'accept' ? 'accepted' : 'declined'}.`,
    detail: 'Detail',
    amount: 'Amount reported',
    reference: 'Reference',
    note: 'What was done (required)',
    resolve: 'Mark resolved',
    resolvedBy: 'Resolved by',
    resolvedAt: 'Resolved',
    resolution: 'Note',
    done: (id) => `Marked ${id} resolved.`,
    already: 'This item was resolved already; nothing changed.',
  },
  deliveries: {
    heading: 'Notifications',
    attention: 'Needs attention',
    failed: 'Failed',
    pending: 'Pending',
    delivered: 'Delivered',
    all: 'All',
    none: 'None.',
    payment: 'Payment',
  },
  delivery: { pending: 'pending', delivered: 'delivered', failed: 'failed' },
  balances: {
    heading: 'Balances and ledger',
    chooseMerchant: 'Merchant',
    show: 'Show',
    payoutAccount: 'Payout account',
    balance: 'Balance',
    postings: 'Postings',
    noPostings: 'No postings yet.',
    exportCsv: 'Export CSV',
    entry: 'Entry',
    kind: 'Kind',
    reasonCol: 'Reason',
    payment: 'Payment',
  },
  merchants: {
    heading: 'Merchants',
    create: 'New merchant',
    name: 'Name',
    payoutCurrency: 'Payout currency',
    payoutAccount: 'Payout account number',
    id: 'merchantid',
    idHint: 'leave empty to generate one',
    feeRate: 'Fee rate',
    feeRateHint: 'e.g. 0.025 for 2.5 %',
    submit: 'Create merchant',
    status: 'Status',
    actions: 'Actions',
    disable: 'Disable',
    enable: 'Enable',
    rotatePassword: 'New API password',
    rotateWebhook: 'New webhook secret',
    consolePassword: 'Issue console password',
    hasConsole: 'console login',
    none: 'No merchants yet.',
    secretsOnce: 'Store these now; they are not shown again.',
    created: 'Merchant created',
    rotatedPassword: 'New API password (the old one no longer works)',
    rotatedWebhook: 'New webhook secret',
    previousUntil: (when) => `The previous secret keeps signing until ${when}.`,
    previousDropped: 'The previous secret could not be opened with this key and was dropped; only the new one signs.',
    issuedConsole: "Merchant's console password",
    statusChanged: 'Status changed',
    statusName: { active: 'active', disabled: 'disabled' },
    payerMismatch: 'Payer mismatch',
    payerMismatchHint: 'when the account that paid is not the one named',
    payerMismatchNames: { record: 'record and complete', hold: 'hold for an operator' },
    setPayerMismatch: 'Set',
    payerMismatchChanged: 'Payer mismatch setting changed',
    back: 'Back to merchants',
  },
  audit: {
    heading: 'Audit log',
    at: 'When',
    who: 'Who',
    action: 'Action',
    target: 'Target',
    details: 'Details',
    from: 'From',
    none: 'No entries yet.',
  },
  errors: {
    notFoundTitle: 'Not found',
    notFoundBody: 'There is no such page or record, or it is not yours to see.',
    forbiddenTitle: 'This request could not be completed',
    forbiddenBody: 'The form expired or did not come from the console. Open the page again and retry.',
    badRequestTitle: 'That input is not valid',
    badRequestBody: 'The request could not be read. Open the page again and retry.',
    errorTitle: 'Temporary problem',
    errorBody: 'Nothing was changed. Please try again in a moment.',
    back: 'Back',
  },
};

export const CONSOLE_TEXTS: Record<ConsoleLang, ConsoleTexts> = { th, en };

export function isConsoleLang(value: unknown): value is ConsoleLang {
  return value === 'th' || value === 'en';
}
