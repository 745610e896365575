// GATEWAY_SECRET_KEY's text: hex or base64 (README.md and docs/deployment.md say how to make one).

/** The key's bytes; undefined when it decodes to fewer than 32 bytes. */
export function decodeKey(raw: string): Buffer | undefined {
  const trimmed = raw.trim();
  const buffer =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
  return buffer.length >= 32 ? buffer : undefined;
}
