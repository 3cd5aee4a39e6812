import type { RequestContext, SvcContext } from '@svc/core'
import type { FieldModel } from '@svc/core/kit'
import { expect, test } from 'tstyche'
import type { FileMeta, FilesApi, UploadSource } from '../../src/index.js'

declare const svc: SvcContext
declare const ctx: RequestContext
declare const source: UploadSource

test('importing @svc/files adds app.svc.files, absent until registered', () => {
  expect(svc.files).type.toBe<FilesApi | undefined>()
  expect<SvcContext>().type.toHaveProperty('files')
})

test('app.svc.files lists file fields and uploads into one', () => {
  const files = svc.files!
  expect(files.fields('contacts')).type.toBe<FieldModel[]>()
  expect(files.upload(ctx, 'contacts', 'id', 'avatar', source)).type.toBe<Promise<FileMeta>>()
  expect(files.upload).type.not.toBeCallableWith(ctx, 'contacts', 'id', source)
})
