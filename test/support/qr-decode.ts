// Reads a QR code back from a PNG with decoders that share no code with the encoder (pngjs +
// jsQR), so a test sees what a banking app's image scanner would.
import { PNG } from 'pngjs';
import jsQR from 'jsqr';

export function decodeQrPng(png: Buffer): { width: number; height: number; text: string | null } {
  const image = PNG.sync.read(png);
  // jsqr is CommonJS: its module.exports is the function, also exported as `default`.
  const code = jsQR.default(
    new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength),
    image.width,
    image.height,
  );
  return { width: image.width, height: image.height, text: code?.data ?? null };
}
