import { startEmbeddedDevDb, type DevDbHandle } from './devdb.js'
import { dockerAnswers, dockerEndpoint } from './docker.js'

/** Which MongoDB the tests of this process talk to. */
export type TestServerKind = 'mongodb-uri' | 'docker' | 'devdb'

/** The image started when a Docker engine answers; a replica set, so transactions work. */
export const MONGO_IMAGE = 'mongo:7'

type Env = Record<string, string | undefined>

function set (value: string | undefined): boolean {
  return value != null && value !== ''
}

/**
 * `MONGODB_URI` when set; otherwise a `mongo:7` container when a Docker engine answers (unless
 * `SVC_TEST_DOCKER=0`); otherwise the embedded devdb. Decided once per test process.
 */
export async function chooseServerKind (env: Env = process.env): Promise<TestServerKind> {
  if (set(env.MONGODB_URI)) return 'mongodb-uri'
  if (env.SVC_TEST_DOCKER === '0' || env.SVC_TEST_DOCKER === 'false') return 'devdb'
  const endpoint = dockerEndpoint(env)
  if (endpoint != null && (await dockerAnswers(endpoint))) return 'docker'
  return 'devdb'
}

let kind: Promise<TestServerKind> | null = null
let container: Promise<string> | null = null
// One embedded devdb per test process (tap runs each file in its own process), started lazily
// and stopped when the last database of the file is dropped.
let devdb: Promise<DevDbHandle> | null = null
let devdbUsers = 0

/**
 * One `mongo:7` replica-set container shared by every test process of the run: testcontainers'
 * reuse finds it by its configuration hash, so only the first file pays the start-up.
 */
async function containerUri (): Promise<string> {
  if (container == null) {
    container = (async () => {
      const { MongoDBContainer } = await import('@testcontainers/mongodb')
      try {
        const started = await new MongoDBContainer(MONGO_IMAGE).withReuse().start()
        // rs.initiate() names the member after the container's hostname: connect to it directly.
        return `${started.getConnectionString()}/?directConnection=true`
      } catch (err) {
        throw new Error(
          `@svc/testkit: a Docker engine answers but ${MONGO_IMAGE} did not start (set SVC_TEST_DOCKER=0 to test on the embedded devdb instead): ${(err as Error).message}`,
          { cause: err }
        )
      }
    })()
    container.catch(() => {
      container = null
    })
  }
  return await container
}

async function devdbUri (): Promise<string> {
  devdbUsers++
  if (devdb == null) {
    devdb = startEmbeddedDevDb()
    devdb.catch(() => {
      devdb = null
    })
  }
  try {
    return (await devdb).uri
  } catch (err) {
    devdbUsers--
    throw err
  }
}

/** A server URI for one database of this process; pair every call with `releaseServer()`. */
export async function acquireServer (): Promise<{ uri: string; kind: TestServerKind }> {
  kind ??= chooseServerKind()
  const k = await kind
  if (k === 'mongodb-uri') return { uri: process.env.MONGODB_URI as string, kind: k }
  if (k === 'docker') return { uri: await containerUri(), kind: k }
  return { uri: await devdbUri(), kind: k }
}

/** Stops the embedded devdb with its last user; external servers and the container stay up. */
export async function releaseServer (k: TestServerKind): Promise<void> {
  if (k !== 'devdb') return
  devdbUsers--
  if (devdbUsers === 0 && devdb != null) {
    const handle = devdb
    devdb = null
    await (await handle).stop()
  }
}
