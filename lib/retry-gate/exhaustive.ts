// The `never` check for exhaustive switches, so adding a phase, class or action breaks the build where it must be
// handled.

export function assertNever(value: never, what: string): never {
  throw new Error(`Unhandled ${what}: ${String(value)}`);
}
