/**
 * `replSetGetStatus` (`rs.status()`) of the one-member replica set: devdb is its PRIMARY since it
 * started (term 1, elected at start), its applied and durable optimes are the set's time of the
 * last write — every write is applied and, with a dbPath, journaled before it is acknowledged —
 * and a majority is this one member. A standalone answers as a standalone mongod.
 */
import { Long, Timestamp } from 'bson'
import type { Handler } from '../commands/context.js'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { advertisedHost } from '../commands/handshake.js'

const TERM = Long.fromNumber(1)

export const replSetGetStatus: Handler = (_cmd, ctx) => {
  const s = ctx.server
  if (s.replSetName === undefined) throw adminError(76, 'not running with --replSet')
  if (ctx.db !== 'admin') {
    throw adminError(Codes.Unauthorized, 'replSetGetStatus may only be run against the admin database.')
  }
  const last = s.clock.last
  const lastDate = new Date(last.t * 1000)
  const opTime = { ts: last, t: TERM }
  const started = s.startedAt
  const startTs = new Timestamp({ t: Math.floor(started.getTime() / 1000), i: 1 })
  const host = `${advertisedHost(s.host)}:${s.port}`
  return {
    set: s.replSetName,
    date: new Date(),
    myState: 1,
    term: TERM,
    syncSourceHost: '',
    syncSourceId: -1,
    heartbeatIntervalMillis: Long.fromNumber(2000),
    majorityVoteCount: 1,
    writeMajorityCount: 1,
    votingMembersCount: 1,
    writableVotingMembersCount: 1,
    optimes: {
      lastCommittedOpTime: opTime,
      lastCommittedWallTime: lastDate,
      readConcernMajorityOpTime: opTime,
      appliedOpTime: opTime,
      durableOpTime: opTime,
      lastAppliedWallTime: lastDate,
      lastDurableWallTime: lastDate
    },
    lastStableRecoveryTimestamp: last,
    electionCandidateMetrics: {
      lastElectionReason: 'electionTimeout',
      lastElectionDate: started,
      electionTerm: TERM,
      lastCommittedOpTimeAtElection: { ts: startTs, t: Long.fromNumber(-1) },
      lastSeenOpTimeAtElection: { ts: startTs, t: Long.fromNumber(-1) },
      numVotesNeeded: 1,
      priorityAtElection: 1,
      electionTimeoutMillis: Long.fromNumber(10000),
      newTermStartDate: started,
      wMajorityWriteAvailabilityDate: started
    },
    members: [
      {
        _id: 0,
        name: host,
        health: 1,
        state: 1,
        stateStr: 'PRIMARY',
        uptime: Math.floor((Date.now() - started.getTime()) / 1000),
        optime: opTime,
        optimeDate: lastDate,
        lastAppliedWallTime: lastDate,
        lastDurableWallTime: lastDate,
        syncSourceHost: '',
        syncSourceId: -1,
        infoMessage: '',
        electionTime: startTs,
        electionDate: started,
        configVersion: 1,
        configTerm: 1,
        self: true,
        lastHeartbeatMessage: ''
      }
    ],
    ok: 1
  }
}
