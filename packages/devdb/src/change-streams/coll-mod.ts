/**
 * collMod, for the one option change streams need: `changeStreamPreAndPostImages: { enabled }`
 * (the driver's spec tests turn pre- and post-images on and off with it). Any other option is
 * refused. The setting lives in memory (not journaled): with a dbPath it does not survive a restart.
 */
import type { Handler } from '../commands/context.js'
import { CommandError, Codes } from '../errors.js'
import { collectionArg } from '../commands/args.js'
import { prePostImagesOption } from '../commands/admin.js'

const GENERIC = new Set([
  'collMod',
  'lsid',
  '$db',
  '$clusterTime',
  'writeConcern',
  'comment',
  '$readPreference',
  'maxTimeMS',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors'
])

export const collModCommand: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'collMod')
  for (const k of Object.keys(cmd)) {
    if (!GENERIC.has(k) && k !== 'changeStreamPreAndPostImages') {
      throw new CommandError(
        Codes.NotImplemented,
        'NotImplemented',
        `devdb's collMod only sets changeStreamPreAndPostImages, not '${k}'`
      )
    }
  }
  const coll = ctx.server.catalog.get(ctx.db, name)
  if (coll === undefined) {
    throw new CommandError(Codes.NamespaceNotFound, 'NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`)
  }
  const images = prePostImagesOption(cmd.changeStreamPreAndPostImages, 'collMod')
  if (images !== undefined) coll.options = { ...coll.options, changeStreamPreAndPostImages: images }
  return { ok: 1 }
}
