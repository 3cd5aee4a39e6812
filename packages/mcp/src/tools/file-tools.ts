import { Readable } from 'node:stream'
import { ValidationError } from '@svc/core'
import { type FieldModel, type ResourceModel } from '@svc/core/kit'
import type { McpTool, ObjectSchema } from '../types.js'
import { READ_ONLY, args, idArg, toolPath, type BuildContext } from './shared.js'

// Spec: upload_/fetch_/delete_<path>_<field> for every File field, over @svc/files' API (the
// same checks, limits, storage, audit rows and events as the REST file routes).

// Canonical base64 only (padding included): a typo must fail, not store a different file.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const MAX_NAME = 255

const FILE_META: ObjectSchema & { required: string[] } = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'storage key, new for every upload' },
    size: { type: 'integer', description: 'bytes' },
    contentType: {
      type: 'string',
      description: 'the type detected from the content (or the declared one when the content says nothing)'
    },
    originalName: { type: 'string' },
    uploadedAt: { type: 'string', format: 'date-time' },
    url: { type: 'string', description: 'public files: the stable URL' }
  },
  required: ['key', 'size', 'contentType', 'originalName', 'uploadedAt']
}

/** Bytes a base64 text of `maxBytes` takes, for the body limit of the MCP route. */
export function base64Length (maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4
}

/** The largest upload any schema's File field accepts, so the MCP route can take its base64 body. */
export function largestFileField (models: Iterable<ResourceModel>): number {
  let max = 0
  for (const m of models) for (const f of m.fields) if (f.kind === 'file') max = Math.max(max, f.file!.maxBytes)
  return max
}

function limits (f: FieldModel): string {
  const accept = f.file!.accept === undefined ? 'any type' : `types ${f.file!.accept.join(', ')}`
  return `at most ${f.file!.maxBytes} bytes, ${accept}, ${f.file!.visibility}`
}

function decode (contentBase64: string): Buffer {
  if (!BASE64.test(contentBase64)) {
    throw new ValidationError(
      'contentBase64 is not valid base64 (A-Z a-z 0-9 + /, padded with = to a multiple of 4 characters)',
      { field: 'contentBase64' }
    )
  }
  return Buffer.from(contentBase64, 'base64')
}

function uploadTool (b: BuildContext, model: ResourceModel, f: FieldModel): McpTool {
  const files = b.files!
  return {
    model,
    audience: 'user',
    action: { name: 'upload_file', key: { arg: 'field', value: f.name } },
    definition: {
      name: `upload_${toolPath(model)}_${f.name}`,
      title: `Upload ${model.path}.${f.name}`,
      description: `Store a file in the ${f.name} field of one ${model.path} record (${limits(f)}), replacing the file it held. Send the bytes as base64 with the file name; the type is detected from the content. Returns the stored file's metadata. Only the caller's own records (NOT_FOUND otherwise); a file too large or of a type the field does not accept is a VALIDATION error (details say which limit).`,
      inputSchema: args(
        {
          id: idArg(model),
          name: { type: 'string', minLength: 1, maxLength: MAX_NAME, description: 'the file name, e.g. contract.pdf' },
          contentType: {
            type: 'string',
            maxLength: 255,
            description: 'optional MIME type, used only when the content does not reveal it'
          },
          contentBase64: {
            type: 'string',
            contentEncoding: 'base64',
            description: `the file's bytes, base64-encoded (at most ${base64Length(f.file!.maxBytes)} characters)`
          }
        },
        ['id', 'name', 'contentBase64']
      ),
      outputSchema: FILE_META,
      annotations: {
        title: `Upload ${model.path} ${f.name}`,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false
      }
    },
    run: async (ctx, a) => {
      const bytes = decode(a.contentBase64 as string)
      const meta = await files.upload(
        ctx,
        model.path,
        a.id as string,
        f.name,
        {
          stream: Readable.from([bytes]),
          filename: a.name as string,
          ...(typeof a.contentType === 'string' ? { mimetype: a.contentType } : {})
        },
        model.version
      )
      return {
        structured: { ...meta },
        summary: `Stored ${meta.originalName} (${meta.size} bytes, ${meta.contentType}) in ${model.path} ${String(a.id)} ${f.name}`
      }
    }
  }
}

function fetchTool (b: BuildContext, model: ResourceModel, f: FieldModel): McpTool {
  const files = b.files!
  const link =
    f.file!.visibility === 'public' ? 'its stable public URL' : 'a signed download URL valid for a few minutes'
  return {
    model,
    audience: 'read',
    action: { name: 'fetch_file', key: { arg: 'field', value: f.name } },
    definition: {
      name: `fetch_${toolPath(model)}_${f.name}`,
      title: `Fetch ${model.path}.${f.name}`,
      description: `The metadata of the file in the ${f.name} field of one ${model.path} record and ${link} (the bytes are not returned: hand the URL to whoever needs the file). NOT_FOUND when the record is not the caller's or the field is empty.`,
      inputSchema: args({ id: idArg(model) }, ['id']),
      outputSchema: { ...FILE_META, required: [...FILE_META.required, 'url'] },
      annotations: { title: `Fetch ${model.path} ${f.name}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const meta = await files.fetch(ctx, model.path, a.id as string, f.name, model.version)
      return {
        structured: { ...meta },
        summary: `${meta.originalName} (${meta.size} bytes, ${meta.contentType}): ${meta.url}`
      }
    }
  }
}

function deleteFileTool (b: BuildContext, model: ResourceModel, f: FieldModel): McpTool {
  const files = b.files!
  return {
    model,
    audience: 'user',
    action: { name: 'delete_file', key: { arg: 'field', value: f.name } },
    definition: {
      name: `delete_${toolPath(model)}_${f.name}`,
      title: `Delete ${model.path}.${f.name}`,
      description: `Remove the file in the ${f.name} field of one ${model.path} record and clear the field (the record stays). NOT_FOUND when the record is not the caller's or the field is already empty.`,
      inputSchema: args({ id: idArg(model) }, ['id']),
      outputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, field: { type: 'string' }, removed: { type: 'boolean' } },
        required: ['id', 'field', 'removed']
      },
      annotations: {
        title: `Delete ${model.path} ${f.name}`,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false
      }
    },
    run: async (ctx, a) => {
      await files.remove(ctx, model.path, a.id as string, f.name, model.version)
      return {
        structured: { id: a.id as string, field: f.name, removed: true },
        summary: `Removed the ${f.name} file of ${model.path} ${String(a.id)}`
      }
    }
  }
}

/** The three tools of each File field; none without @svc/files. */
export function fileTools (b: BuildContext, model: ResourceModel): McpTool[] {
  if (b.files === undefined) return []
  return model.fields
    .filter((f) => f.kind === 'file')
    .flatMap((f) => [uploadTool(b, model, f), fetchTool(b, model, f), deleteFileTool(b, model, f)])
}
