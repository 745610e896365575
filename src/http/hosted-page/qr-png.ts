// The PNG behind "Save QR": the same payload as the page's SVG, as an image a customer can
// save and open in their banking app on the same phone. Only the QR itself — no text, so no
// names, amounts or account data beyond what the payload already carries for the bank.
import QRCode from 'qrcode';

/** Width and height in pixels: large enough for any banking app's image scanner. */
export const QR_PNG_SIZE = 640;

export function renderQrPng(payload: string): Promise<Buffer> {
  // Same error correction as the SVG; a full 4-module quiet zone, since the saved image has no
  // page padding around it.
  return QRCode.toBuffer(payload, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: QR_PNG_SIZE });
}
