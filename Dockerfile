# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the full toolchain.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Run stage: production dependencies and compiled code only, as the non-root `node` user.
# test/store/run-stage.test.ts reproduces this stage without Docker; keep the two in step.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    TERMINALS_FILE=/app/terminals/terminals.json \
    TERMINAL_COMMAND=terminal
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `node` package (a runtime dependency, so a stock host keeps the Node 24 it brings)
# would fetch a second Node 24 here; the image has one. test/store/run-stage.test.ts checks that no
# other production dependency needs its install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config/sandbox-accounts.json config/terminals.example.json ./config/
# The terminals CLI inside the image: `docker compose run --rm bff terminal add ...`; TERMINAL_COMMAND
# makes the BFF's hints name it (compose.yaml names the compose spelling).
RUN printf '#!/bin/sh\nexec node /app/dist/pos/terminals/cli.js "$@"\n' > /usr/local/bin/terminal \
 && chmod 0755 /usr/local/bin/terminal \
 && mkdir -p /app/terminals && chown node:node /app/terminals && chmod 0700 /app/terminals
# A DIRECTORY, not a file: the CLI replaces terminals.json by rename, which a
# single-file bind mount would never show to the running BFF.
VOLUME ["/app/terminals"]
USER node
# Only the cashier API. The bundled sandbox listens on 127.0.0.1 inside the container: nothing to publish.
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "dist/platform/healthcheck.js"]
# Exec form: node is PID 1, so SIGTERM reaches it and it drains.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
