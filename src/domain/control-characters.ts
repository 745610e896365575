// Text fields never carry control characters: PostgreSQL cannot store NUL in text at all, and
// NUL, escapes or newlines in a stored name or e-mail turn into log injection or a broken page
// later. Refused at the edge (400 INVALID_FIELD) so both stores see the same input.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

export const NO_CONTROL_CHARACTERS = 'it must not contain control characters such as NUL, tab or newline';
