// What a PostgreSQL ledger store remembers of the rows its commands read and wrote, so that the next command on the
// same operation need not read them again. Never trusted on its own word: a command that relied on a remembered row
// has that row's version checked inside its one statement (by its own conditional write of the row, or by a check of
// its own), and runs again on fresh reads when a check fails, when it refuses, or when it fails in any other way
// (lib/ledger/store/postgres/one-statement-tx.ts, postgres.ts).
import type { Attempt, Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import type { AttemptChanges, DependencyChanges, OperationColumns } from "../types";

export interface RememberedOperation {
  op: Operation;
  /** The attempt numbered op.attempt; null before the first dispatch. */
  attempt: Attempt | null;
}

/** A bound, not a policy: the operations in flight at once on one instance are far fewer. */
const MAX_ROWS = 10_000;

/** Sets `key` as the newest entry, dropping the oldest beyond MAX_ROWS. */
function put<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ROWS) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

export class RememberedRows {
  readonly operations = new Map<string, RememberedOperation>();
  readonly dependencies = new Map<string, Dependency>();
  /** A tool's current contract version. */
  readonly heads = new Map<string, number>();
}

/** The versions a command relied on from memory: its statement checks that each row is still at that version. */
export interface Relied {
  operations: Map<string, number>;
  dependencies: Map<string, number>;
  heads: Map<string, number>;
}

/** One command's dealings with the memory: what it relied on, what it knows, and what it changed. */
export class CommandMemory {
  readonly relied: Relied = { operations: new Map(), dependencies: new Map(), heads: new Map() };
  readonly #known = {
    operations: new Map<string, RememberedOperation>(),
    dependencies: new Map<string, Dependency>(),
    heads: new Map<string, number>(),
  };
  readonly #operationChanges = new Map<string, OperationColumns>();
  readonly #insertedOperations = new Map<string, Operation>();
  readonly #insertedAttempts = new Map<string, Attempt>();
  readonly #attemptChanges = new Map<string, AttemptChanges>();
  readonly #dependencyChanges = new Map<string, DependencyChanges>();

  /** `fresh`: read everything from the database (a second run after memory misled the first). */
  constructor(
    readonly rows: RememberedRows,
    readonly fresh: boolean,
  ) {}

  get reliedOnMemory(): boolean {
    return this.relied.operations.size + this.relied.dependencies.size + this.relied.heads.size > 0;
  }

  /** An operation (with its attempt and dependency) as remembered, if all of it is; recorded as relied on. */
  recall(
    id: string,
    dependencyOf: (op: Operation) => string | null,
  ): { entry: RememberedOperation; dependency: Dependency | null } | null {
    if (this.fresh) return null;
    const entry = this.rows.operations.get(id);
    if (!entry) return null;
    const name = dependencyOf(entry.op);
    const dependency = name === null ? null : this.rows.dependencies.get(name);
    if (dependency === undefined) return null;
    this.relied.operations.set(id, entry.op.version);
    this.knowOperation(entry);
    if (dependency) this.relyOnDependency(dependency);
    return { entry, dependency };
  }

  /** A tool's current contract version as remembered (not yet relied on: see relyOnHead). */
  recallHead(tool: string): number | null {
    return this.fresh ? null : (this.rows.heads.get(tool) ?? null);
  }

  relyOnHead(tool: string, version: number): void {
    this.relied.heads.set(tool, version);
    this.#known.heads.set(tool, version);
  }

  recallDependency(name: string): Dependency | null {
    if (this.fresh) return null;
    const dependency = this.rows.dependencies.get(name);
    if (!dependency) return null;
    this.relyOnDependency(dependency);
    return dependency;
  }

  private relyOnDependency(dependency: Dependency): void {
    this.relied.dependencies.set(dependency.name, dependency.version);
    this.#known.dependencies.set(dependency.name, dependency);
  }

  knowOperation(entry: RememberedOperation): void {
    this.#known.operations.set(entry.op.id, entry);
  }

  knowDependency(dependency: Dependency): void {
    this.#known.dependencies.set(dependency.name, dependency);
  }

  knowHead(tool: string, version: number): void {
    this.#known.heads.set(tool, version);
  }

  insertedOperation(op: Operation): void {
    this.#insertedOperations.set(op.id, op);
  }

  updatedOperation(id: string, columns: OperationColumns): void {
    this.#operationChanges.set(id, columns);
  }

  insertedAttempt(row: Attempt): void {
    this.#insertedAttempts.set(row.operationId, row);
  }

  updatedAttempt(id: string, changes: AttemptChanges): void {
    this.#attemptChanges.set(id, changes);
  }

  updatedDependency(name: string, changes: DependencyChanges): void {
    this.#dependencyChanges.set(name, changes);
  }

  /** After the command's statement succeeded: remember the rows as they now are, forget those it cannot follow. */
  remember(): void {
    const { operations, dependencies, heads } = this.rows;
    const followed = new Set<string>();
    for (const [id, entry] of this.#known.operations) {
      followed.add(id);
      put(operations, id, this.#after(entry));
    }
    for (const [id, op] of this.#insertedOperations) {
      followed.add(id);
      put(operations, id, this.#after({ op, attempt: null }));
    }
    // A write to an operation read some other way (the sweep's), or an attempt of one: the memory no longer knows it.
    for (const id of [...this.#operationChanges.keys(), ...this.#insertedAttempts.keys()])
      if (!followed.has(id)) operations.delete(id);
    for (const [name, dependency] of this.#known.dependencies) {
      put(dependencies, name, { ...dependency, ...this.#dependencyChanges.get(name) });
    }
    for (const name of this.#dependencyChanges.keys())
      if (!this.#known.dependencies.has(name)) dependencies.delete(name);
    for (const [tool, version] of this.#known.heads) put(heads, tool, version);
  }

  #after({ op, attempt }: RememberedOperation): RememberedOperation {
    const inserted = this.#insertedAttempts.get(op.id);
    const changes = attempt ? this.#attemptChanges.get(attempt.id) : undefined;
    return {
      op: { ...op, ...this.#operationChanges.get(op.id) },
      attempt: inserted ?? (attempt && changes ? { ...attempt, ...changes } : attempt),
    };
  }

  /** After a failure: forget every row the command read, relied on or wrote. */
  forget(): void {
    const { operations, dependencies, heads } = this.rows;
    for (const id of [
      ...this.#known.operations.keys(),
      ...this.#operationChanges.keys(),
      ...this.#insertedOperations.keys(),
      ...this.#insertedAttempts.keys(),
    ])
      operations.delete(id);
    for (const name of [...this.#known.dependencies.keys(), ...this.#dependencyChanges.keys()])
      dependencies.delete(name);
    for (const tool of this.#known.heads.keys()) heads.delete(tool);
  }
}
