# syntax=docker/dockerfile:1
# The service's container image: a build stage that installs every dependency and compiles dist/
# (server and web page), and a runtime stage with production dependencies, dist/ and the files the
# service reads at run time (plugin manifests, workflows/), running as the unprivileged `node` user.
# The development machine cannot pull images: this file is built and smoke-tested by the hosted
# workflow (.github/workflows/ci.yml, job `image`), not locally (docs/operating.md, "Containers").
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# better-sqlite3, sharp and ssh2 ship prebuilt binaries; the toolchain is for a platform they lack.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY . .
# `npm ci` installs from the lockfile and its `prepare` script builds dist/ (scripts/build.mjs: tsc
# and vite); then the development dependencies go.
RUN npm ci && test -f dist/core/main.js && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8084 \
    SMTP_PORT=2525 \
    DNS_PORT=5300 \
    DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/plugins ./plugins
COPY --from=build --chown=root:root /app/workflows ./workflows
# The documentation the service serves at /docs/ (core/web/docs.ts).
COPY --from=build --chown=root:root /app/docs ./docs
COPY --from=build --chown=root:root /app/README.md /app/CONTRIBUTING.md ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8084 2525 5300/udp 5300/tcp
# Liveness (/healthz); a balancer should ask /readyz, which also turns 503 while shutting down.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8084) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: stop accepting, finish in-flight captures (SHUTDOWN_GRACE_MS), flush, exit 0.
STOPSIGNAL SIGTERM
# The node flags `npm start` gives the service (core/lifecycle/node-flags.ts says why).
CMD ["node", "--max-semi-space-size=8", "--single-threaded-gc", "dist/core/main.js"]
