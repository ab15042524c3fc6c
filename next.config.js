/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and server-only packages stay out of the bundle (Next already externalises most of these).
  // prom-client and OpenTelemetry keep process-wide state (the metrics registry, the tracer provider): one copy.
  serverExternalPackages: [
    "better-sqlite3",
    "pg",
    "@prisma/client",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "prom-client",
    "pino",
    "@opentelemetry/api",
    "@opentelemetry/core",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/exporter-trace-otlp-http",
  ],
  poweredByHeader: false,
  // The production build type-checks the app only; `npm test` type-checks everything (tests included).
  typescript: { tsconfigPath: "tsconfig.build.json" },
  // Pages and the API get their security headers from proxy.ts (a per-request CSP nonce); the build's static
  // files, which the proxy skips, get the ones that apply to them here.
  async headers() {
    return [
      {
        source: "/_next/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
      {
        source: "/_next/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "https" }],
        headers: [{ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" }],
      },
    ];
  },
};
export default nextConfig;
