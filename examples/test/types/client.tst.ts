// The typed client generated for the CRM (examples/client, what `svc client` writes): its types
// follow the schemas, so misuse fails to compile.
import { expect, test } from 'tstyche'
import { createClient, type DealsRecord } from '../../client/index.js'

const api = createClient({ baseUrl: 'http://127.0.0.1:3000' })

test("a list is a page of the schema's records; a filter knows field names and operators", () => {
  expect(api.deals.list({ filter: { amount: { $gte: 100 } } })).type.toBeAssignableTo<
    Promise<{ results: DealsRecord[] }>
  >()
  expect(api.deals.list).type.not.toBeCallableWith({ filter: { amout: 1 } })
  expect(api.deals.list).type.not.toBeCallableWith({ filter: { amount: { $regex: '^1' } } })
})

test("create takes the schema's input: required fields, enum values", () => {
  expect(api.deals.create).type.toBeCallableWith({ title: 'Renewal', amount: 1200, currency: 'EUR' })
  expect(api.deals.create).type.not.toBeCallableWith({ amount: 1200 })
  expect(api.deals.create).type.not.toBeCallableWith({ title: 'Renewal', amount: 1200, currency: 'JPY' })
})
