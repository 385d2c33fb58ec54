/**
 * What differs between the engines as the server sees them. The server works through
 * `StoreApi`; the few parts that exist only on SQLite (hybrid recall's vectors, closing a
 * namespace's file when it is evicted) ask for a SQLite store here.
 */
import { type Awaitable, MemoryStore, type StoreApi } from "@hms/store";

/** `store` as a SQLite `MemoryStore`, or undefined on another engine. */
export function sqliteStore(store: StoreApi): MemoryStore | undefined {
  return store instanceof MemoryStore ? store : undefined;
}

/** Whether `store` has been closed (a SQLite store evicted from the open ones, or shut). */
export function isClosed(store: StoreApi): boolean {
  return sqliteStore(store)?.open === false;
}

/**
 * `then(value)`: at once when `value` is a value (SQLite answers synchronously), else once it
 * resolves (PostgreSQL). So a call on SQLite stays synchronous from start to answer, as it was
 * before there were two engines: answers leave in the order the calls came, and the history
 * attributes every write of the call (`HistoryApi.attributed` covers only synchronous work).
 */
export function after<T, U>(value: Awaitable<T>, then: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(then) : then(value);
}
