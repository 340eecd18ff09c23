/**
 * Shortens text to at most `max` UTF-16 units, ending with '…' when cut. Never splits a
 * surrogate pair: half an emoji is not valid UTF-8, and DynamoDB rejects such strings.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
