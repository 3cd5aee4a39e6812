# svc reference server (and the agent: same image, another command).
# Build: docker build -t svc .   Run: docker run -p 3000:3000 -e MONGODB_URI=... -e JWT_SECRET=... svc
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
# Compiled dist/ of every package, then a production-only node_modules.
RUN npx -y pnpm@10 install --frozen-lockfile \
 && npx -y pnpm@10 build --output-logs=errors-only \
 && CI=true npx -y pnpm@10 install --frozen-lockfile --prod --ignore-scripts

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 SCHEMA_DIR=/app/schema DATA_DIR=/data UPLOADS_DIR=/data/uploads
WORKDIR /app
COPY --from=build --chown=node:node /src /app
RUN mkdir -p /data && chown node:node /data
# Non-root: the image's `node` user (uid 1000).
USER node
EXPOSE 3000
# Readiness of the process itself; orchestrators use GET /healthz directly.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains (stop accepting, finish requests, close the database); SVC_WORKERS=auto for one
# worker per core in a container that has several.
STOPSIGNAL SIGTERM
CMD ["node", "apps/server/bin/svc-dist.js", "start"]
