export function start(port = 3000): string {
  return `api listening on ${port}`;
}
