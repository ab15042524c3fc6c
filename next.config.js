/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and server-only packages stay out of the bundle (Next already externalises most of these).
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg"],
  poweredByHeader: false,
};
export default nextConfig;
