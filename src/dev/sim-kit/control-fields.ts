// What the bank simulators' control APIs (/__sim) share: the refusal they answer as 4xx
// {"error": …}, and reading a typed, optional or required member of a JSON body.
export class SimControlError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** `body[name]` when it has `type`; undefined when absent or null; a 400 naming the field otherwise. */
export function field<T>(
  body: Record<string, unknown>,
  name: string,
  type: 'string' | 'number' | 'boolean',
): T | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== type) throw new SimControlError(400, `${name} must be a ${type}`);
  return value as T;
}

export function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new SimControlError(400, `${name} is required`);
  return value;
}
