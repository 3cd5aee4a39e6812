import type { ResourceService, ResourceServices, SvcContext } from '../../src/index.js'
import { expect, test } from 'tstyche'

declare const svc: SvcContext

test('app.svc.services hands out the public ResourceService', () => {
  expect(svc.services).type.toBe<ResourceServices>()
  expect(svc.services.get('notes')).type.toBe<ResourceService>()
  expect(svc.services.all()).type.toBe<ResourceService[]>()
})

test('plugins and surfaces reach the operations, seams, extension points and plugin operations', () => {
  expect<ResourceService>().type.toHaveProperty('list')
  expect<ResourceService>().type.toHaveProperty('bulkPut')
  expect<ResourceService>().type.toHaveProperty('present')
  expect<ResourceService>().type.toHaveProperty('addDurableEffect')
  expect<ResourceService>().type.toHaveProperty('onWrite')
  expect<ResourceService>().type.toHaveProperty('updateWhere')
  expect<ResourceService>().type.toHaveProperty('purgeDeletedBefore')
  expect<ResourceService['relations']>().type.toHaveProperty('populate')
})

test('what only core calls is not on it: migrations, the write fan-out, pricing, the shared page read', () => {
  expect<ResourceService>().type.not.toHaveProperty('migrateBatch')
  expect<ResourceService>().type.not.toHaveProperty('settleMigrationWrites')
  expect<ResourceService>().type.not.toHaveProperty('stored')
  expect<ResourceService>().type.not.toHaveProperty('publish')
  expect<ResourceService>().type.not.toHaveProperty('purged')
  expect<ResourceService>().type.not.toHaveProperty('purgeHooks')
  expect<ResourceService>().type.not.toHaveProperty('charge')
  expect<ResourceService>().type.not.toHaveProperty('priceRead')
  expect<ResourceService>().type.not.toHaveProperty('cost')
  expect<ResourceService>().type.not.toHaveProperty('aggregationCache')
  expect<ResourceService>().type.not.toHaveProperty('accept')
  expect<ResourceService>().type.not.toHaveProperty('findPage')
  expect<ResourceService['relations']>().type.not.toHaveProperty('compile')
})
