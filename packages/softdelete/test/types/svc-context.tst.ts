import type { RecordJson, RequestContext, SvcContext } from '@svc/core'
import { expect, test } from 'tstyche'
import type { SoftDeleteApi, SweepReport } from '../../src/index.js'

declare const svc: SvcContext
declare const ctx: RequestContext

test('importing @svc/softdelete adds app.svc.softDelete, absent until registered', () => {
  expect(svc.softDelete).type.toBe<SoftDeleteApi | undefined>()
  expect<SvcContext>().type.toHaveProperty('softDelete')
})

test('restore answers the record; sweep a report; retentionDays a number or nothing', () => {
  const softDelete = svc.softDelete!
  expect(softDelete.restore(ctx, 'contacts', 'id')).type.toBe<Promise<RecordJson>>()
  expect(softDelete.sweep()).type.toBe<Promise<SweepReport>>()
  expect(softDelete.retentionDays('contacts', 'v1')).type.toBe<number | undefined>()
  expect(softDelete.restore).type.not.toBeCallableWith('contacts', 'id')
})
