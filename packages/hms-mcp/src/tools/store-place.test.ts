import { describe, expect, it } from "vitest";
import { placeFor, storePlace } from "./store-place.js";

describe("which store a server serves", () => {
  it("is a SQLite data directory, by path for the operator and by name for a tenant", () => {
    const place = storePlace({ dataDir: "/home/op/try/store" });
    expect(place).toEqual({ engine: "sqlite", name: "store", location: "/home/op/try/store" });
    expect(placeFor(place, true)).toEqual(place);
    expect(placeFor(place, false)).toEqual({ engine: "sqlite", name: "store" });
  });

  it("is a PostgreSQL database, never with its user, password or parameters", () => {
    const place = storePlace({
      dataDir: "/unused",
      databaseUrl: "postgres://hms:s3cret@db.example:5433/memories?sslmode=require&password=x",
    });
    expect(place).toEqual({
      engine: "postgresql",
      name: "memories",
      location: "postgresql://db.example:5433/memories",
    });
    expect(JSON.stringify(place)).not.toMatch(/s3cret|hms:|sslmode|password/);
    expect(placeFor(place, false)).toEqual({ engine: "postgresql", name: "memories" });
    expect(storePlace({ dataDir: "/u", databaseUrl: "postgresql:///hms?host=/run/pg" })).toEqual({
      engine: "postgresql",
      name: "hms",
      location: "postgresql:///hms?host=%2Frun%2Fpg",
    });
  });
});
