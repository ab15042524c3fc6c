/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and server-only packages stay out of the bundle (Next already externalises most of these).
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg"],
  poweredByHeader: false,
  // The production build type-checks the app only; `npm test` type-checks everything (tests included).
  typescript: { tsconfigPath: "tsconfig.build.json" },
};
export default nextConfig;
