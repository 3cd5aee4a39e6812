import type { RequestContext, SvcContext } from '@svc/core'
import { expect, test } from 'tstyche'
import type { AuditApi, HistoryPage } from '../../src/index.js'

declare const svc: SvcContext
declare const ctx: RequestContext

test('importing @svc/audit adds app.svc.audit, absent until registered', () => {
  expect(svc.audit).type.toBe<AuditApi | undefined>()
  expect<SvcContext>().type.toHaveProperty('audit')
})

test('app.svc.audit.history takes a context, a path and an id, and pages', () => {
  const audit = svc.audit!
  expect(audit.history(ctx, 'contacts', 'id', { page: 2, perPage: 10 })).type.toBe<Promise<HistoryPage>>()
  expect(audit.history).type.not.toBeCallableWith(ctx, 'contacts')
  expect(audit.history).type.not.toBeCallableWith(ctx, 'contacts', 'id', { page: '2' })
})
