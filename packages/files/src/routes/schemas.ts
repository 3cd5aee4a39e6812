import { Type } from '@sinclair/typebox'
import type { FieldModel } from '@svc/core/kit'

const fileMetaProps = {
  key: Type.String({ description: 'storage key: <userId>/<path>/<field>/<id>-<random>.<ext>' }),
  size: Type.Integer({ description: 'bytes' }),
  contentType: Type.String({ description: 'MIME type detected from the content' }),
  originalName: Type.String(),
  uploadedAt: Type.String({ format: 'date-time' })
}

export const FileMetaSchema = Type.Object({
  ...fileMetaProps,
  url: Type.Optional(Type.String({ description: 'public files only: the stable URL' }))
})
export const FileMetaWithUrlSchema = Type.Object({
  ...fileMetaProps,
  url: Type.String({ description: 'private: signed, expires; public: stable' })
})
export const OkSchema = Type.Object({ ok: Type.Boolean() })
export const IdParamsSchema = Type.Object({ id: Type.String({ description: 'record id (24 hex characters)' }) })

/**
 * The multipart body as Swagger 2.0 describes it (`consumes: multipart/form-data`, one
 * `formData` parameter of type `file`). Documentation only: the handler parses the stream.
 */
export function uploadBodySchema (field: FieldModel): Record<string, unknown> {
  const { maxBytes, accept } = field.file!
  return {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        type: 'file',
        description: `at most ${maxBytes} bytes${accept !== undefined ? `; ${accept.join(', ')}` : ''}`
      }
    }
  }
}
