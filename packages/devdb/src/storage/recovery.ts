/**
 * Startup recovery: newest complete snapshot + every journal from its generation on, in order.
 *
 * Only the very end of the newest journal can legitimately be damaged (a write that was in
 * flight when the process died; it was never acknowledged), so that tail is truncated away.
 * Damage anywhere else — in a snapshot, in an older journal, or followed by intact records —
 * means acknowledged data would be lost, and recovery refuses to start instead.
 */
import { promises as fsp } from 'node:fs'
import { journalPath, listDbFiles, removeIfExists, snapshotPath } from './db-files.js'
import { scanRecords, type DecodedRecord } from './record-codec.js'
import { readSnapshotFile } from './snapshot-file.js'
import { StateBuilder, asJournalEntry } from './state-builder.js'

export interface RecoveryReport {
  snapshotGen: number | undefined
  journalsReplayed: number[]
  recordsReplayed: number
  /** Bytes cut from the end of the newest journal (a torn, unacknowledged last write). */
  truncatedBytes: number
}

export interface Recovered {
  builder: StateBuilder
  lastSeq: number
  /** Journal generation new commits append to. */
  activeGen: number
  activeJournalBytes: number
  report: RecoveryReport
}

export async function recover (dir: string): Promise<Recovered> {
  const files = await listDbFiles(dir)
  // Leftovers of a snapshot write that never reached its rename: never complete, never needed.
  for (const t of files.temps) await removeIfExists(t)

  const snapshotGen = files.snapshots.at(-1)
  const replay = await startFrom(dir, snapshotGen)
  const base = snapshotGen ?? 0
  const journals = files.journals.filter((g) => g >= base)
  const report: RecoveryReport = { snapshotGen, journalsReplayed: [], recordsReplayed: 0, truncatedBytes: 0 }
  let activeJournalBytes = 0

  for (const [i, gen] of journals.entries()) {
    const file = journalPath(dir, gen)
    const buf = await fsp.readFile(file)
    const scan = scanRecords(buf)
    const isLast = i === journals.length - 1
    if (scan.damage !== undefined) {
      const d = scan.damage
      if (!isLast || d.laterValidRecordAt !== undefined) {
        throw new Error(
          `devdb storage: journal ${file} is corrupt at byte ${d.offset} (${d.problem})` +
            (d.laterValidRecordAt !== undefined
              ? `, followed by intact records at byte ${d.laterValidRecordAt}`
              : ', and newer journals follow it') +
            '; refusing to start because acknowledged writes would be lost. Restore the dbPath from a backup.'
        )
      }
      await fsp.truncate(file, scan.validLength)
      report.truncatedBytes = buf.length - scan.validLength
    }
    report.recordsReplayed += replay.apply(scan.records)
    report.journalsReplayed.push(gen)
    if (isLast) activeJournalBytes = scan.validLength
  }

  // Journals and snapshots older than the snapshot in use are obsolete (a crash between the
  // snapshot's rename and their deletion leaves them behind).
  for (const g of files.journals) if (g < base) await removeIfExists(journalPath(dir, g))
  for (const g of files.snapshots) if (g < base) await removeIfExists(snapshotPath(dir, g))

  return {
    builder: replay.builder,
    lastSeq: replay.lastSeq,
    activeGen: Math.max(base, journals.at(-1) ?? base),
    activeJournalBytes,
    report
  }
}

/**
 * Compaction's view of the files: the newest snapshot at or below `lastGen` plus the journals
 * up to `lastGen`, all of which are complete (the writer has moved on to a newer journal), so
 * any damage at all is an error here.
 */
export async function rebuildFromDisk (
  dir: string,
  lastGen: number
): Promise<{ builder: StateBuilder; lastSeq: number }> {
  const files = await listDbFiles(dir)
  const snapshotGen = files.snapshots.filter((g) => g <= lastGen).at(-1)
  const replay = await startFrom(dir, snapshotGen)
  for (const gen of files.journals.filter((g) => g >= (snapshotGen ?? 0) && g <= lastGen)) {
    const file = journalPath(dir, gen)
    const scan = scanRecords(await fsp.readFile(file))
    if (scan.damage !== undefined) {
      throw new Error(
        `devdb storage: journal ${file} is corrupt at byte ${scan.damage.offset} (${scan.damage.problem}); compaction aborted`
      )
    }
    replay.apply(scan.records)
  }
  return { builder: replay.builder, lastSeq: replay.lastSeq }
}

/** A replay in progress: the state so far and the sequence number of the last record applied. */
interface Replay {
  builder: StateBuilder
  lastSeq: number
  /** Applies the records newer than `lastSeq`; returns how many it applied. */
  apply: (records: DecodedRecord[]) => number
}

/** Starts a replay from the given snapshot, or from an empty state. */
async function startFrom (dir: string, snapshotGen: number | undefined): Promise<Replay> {
  const snap = snapshotGen === undefined ? undefined : await readSnapshotFile(snapshotPath(dir, snapshotGen))
  const replay: Replay = {
    builder: snap?.builder ?? new StateBuilder(),
    lastSeq: snap?.seq ?? 0,
    apply (records) {
      let applied = 0
      for (const r of records) {
        // Commits queued when a snapshot was taken are in that snapshot and again at the head of
        // the next journal; their sequence numbers tell which ones to skip.
        if (r.seq <= replay.lastSeq) continue
        for (const d of r.docs) replay.builder.apply(asJournalEntry(d))
        replay.lastSeq = r.seq
        applied++
      }
      return applied
    }
  }
  return replay
}
