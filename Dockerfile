# The gateway as a small, non-root image on Node 24. No build step: Node runs the TypeScript
# sources directly (type stripping), so the image holds src/ (and the webhook code it shares with
# packages/client/src) and the production dependencies.
#   docker build -t thaiqr-gateway .
#   docker run --init -p 8080:8080 -v gateway-data:/data thaiqr-gateway     # sandbox on SQLite
# Several instances on PostgreSQL: see compose.yaml.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev leaves out the pinned `node` package (the image already is Node 24), the test and
# benchmark tools; no dependency needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PUBLIC_BASE_URL=http://localhost:8080 \
    DATABASE_URL=sqlite:/data/gateway.db \
    GATEWAY_SECRET_KEY_FILE=/data/secret.key
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
# The Standard Webhooks code is shared with the merchant client package (one implementation).
COPY packages/client/src ./packages/client/src
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# Ready = the store answers and the instance is not draining (GET /readyz).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself (drain, finish deliveries, close the store, exit 0);
# it starts no child processes, so there are no zombies to reap (`--init` is fine too).
STOPSIGNAL SIGTERM
CMD ["node", "src/main.ts"]
