# syntax=docker/dockerfile:1

# ---- build: compile TypeScript with every dependency installed ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: nothing the build or the runtime needs has one (the embedded
# PostgreSQL, which does, is a development dependency and unused in the image). The client
# package (packages/client, an npm workspace) is not part of the service: --workspaces=false.
RUN npm ci --ignore-scripts --no-audit --no-fund --workspaces=false
COPY tsconfig.json tsconfig.build.json tsconfig.migrations.json ./
COPY src ./src
COPY migrations ./migrations
# The build copies Redoc's bundle (a devDependency) into dist/reference/, served at /reference.
COPY scripts/copy-redoc.mjs ./scripts/
RUN npm run build && npm prune --omit=dev --ignore-scripts --workspaces=false

# ---- runtime: production dependencies and the compiled code, as a non-root user ----
FROM node:24-bookworm-slim AS runtime
# --max-semi-space-size=32: Node 24's V8 lets the young generation grow past that under a
# sustained allocation rate (a long listOrders), which took the list's peak RSS to about
# 270 MB; at 32 MB it peaks at about 200 MB, and a small request's scavenges cost about 1 µs
# more. Smaller is worse: at 16 MB each small request paid about 17 µs more in collections
# (docs/performance.md). npm run bench and the image-start check read the NODE_OPTIONS below.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=32" \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# Served at /changelog, where the deprecation Link points by default; read at start-up.
COPY --chown=node:node CHANGELOG.md ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The tracing preload loads nothing unless the OTEL_* variables turn tracing on
# (docs/operating.md, Tracing); it must come before main so the instrumentations patch its imports.
CMD ["node", "--import", "./dist/tracing/register.js", "dist/main"]
