import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
const url = (process.env.DATABASE_URL ??= "postgresql://localhost/none");
export default defineConfig({
  schema: "/tmp/pgexp/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => {
    const f = new PrismaPg({ connectionString: url });
    const wrap = (a: any) => new Proxy(a, { get(t, p) { const v = t[p]; if (typeof v !== "function") return v; return (...args: any[]) => { console.error("CALL", String(p), JSON.stringify(args).slice(0, 300)); return v.apply(t, args); }; } });
    return { provider: f.provider, adapterName: f.adapterName, connect: async () => wrap(await f.connect()), connectToShadowDb: async () => wrap(await f.connectToShadowDb()) } as any;
  },
});
