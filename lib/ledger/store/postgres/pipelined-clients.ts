// The ledger store's PostgreSQL connections in pipeline mode: a statement goes out at once on the least busy
// connection, behind the statements already on its way.
import pg from "pg";

/** Statements in flight on every open connection before another connection is opened (up to the pool's size). */
export const PIPELINE_DEPTH = 4;

interface Connection {
  client: Promise<pg.Client>;
  statements: number;
}

/**
 * A pool for statements that are each a transaction of their own (the store's reads, and its one write statement per
 * command): node-postgres' `pipeline` mode writes a statement without waiting for the answers to those ahead of it,
 * each with its own Sync, so a failing statement fails alone. A pg.Pool would hold a connection for a whole round
 * trip; here a few connections carry all the statements, which costs the server and this process fewer wake-ups per
 * statement (decision 012). Never for BEGIN ... COMMIT: the statements of one connection interleave.
 */
export class PipelinedClients {
  readonly #connections: Connection[] = [];
  #closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly size: number,
  ) {}

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    const connection = this.#pick();
    connection.statements++;
    try {
      return await (await connection.client).query<R>(config);
    } finally {
      connection.statements--;
    }
  }

  /** How many connections are open or opening. */
  get connections(): number {
    return this.#connections.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const clients = this.#connections.splice(0).map((connection) => connection.client);
    await Promise.all(clients.map(async (client) => (await client.catch(() => null))?.end()));
  }

  #pick(): Connection {
    if (this.#closed) throw new Error("the ledger store is closed");
    let least: Connection | undefined;
    for (const c of this.#connections) if (!least || c.statements < least.statements) least = c;
    if (least && (least.statements < PIPELINE_DEPTH || this.#connections.length >= this.size)) return least;
    return this.#open();
  }

  #open(): Connection {
    const client = new pg.Client({ ...this.config, pipeline: true });
    const connection: Connection = { client: client.connect().then(() => client), statements: 0 };
    const drop = () => {
      const at = this.#connections.indexOf(connection);
      if (at >= 0) this.#connections.splice(at, 1);
    };
    // A connection that failed to open, broke or was closed by the server is dropped (its statements fail with its
    // error, as on a pg.Pool); the next statement opens another.
    client.on("error", drop);
    client.on("end", drop);
    connection.client.catch(drop);
    this.#connections.push(connection);
    return connection;
  }
}
