import type { FieldModel, ResourceModel } from '@svc/core/kit'
import type { StorageDriver } from './driver.js'
import type { LocalDriver } from './local-driver.js'

/** The drivers of one app and which one a field uses (its `file.storage`). */
export class BlobStores {
  readonly local: LocalDriver
  readonly s3: StorageDriver | undefined

  constructor (local: LocalDriver, s3: StorageDriver | undefined) {
    this.local = local
    this.s3 = s3
  }

  for (field: FieldModel): StorageDriver {
    if (field.file?.storage !== 's3') return this.local
    // Checked at start (every s3 field needs the s3 option), so this never throws at request time.
    if (this.s3 === undefined) {
      throw new Error(`@svc/files: field ${field.name} uses s3 storage but no s3 option was given`)
    }
    return this.s3
  }

  all (): StorageDriver[] {
    return this.s3 === undefined ? [this.local] : [this.local, this.s3]
  }
}

export function fileFields (model: ResourceModel): FieldModel[] {
  return model.fields.filter((f) => f.kind === 'file')
}
