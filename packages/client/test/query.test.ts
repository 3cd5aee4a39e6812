import t from 'tap'
import { listParams } from '../src/index.js'

t.test('list options as the REST query string', async (t) => {
  t.equal(
    listParams({
      filter: { amount: { $gte: 5 }, stage: 'won' },
      sort: ['amount:desc', 'title'],
      page: 2,
      perPage: 10
    }).toString(),
    'amount=%7B%22%24gte%22%3A5%7D&stage=won&__sort=amount%3Adesc%2Ctitle&__page=2&__perPage=10'
  )
  t.equal(
    listParams({ perPage: 2, cursor: 'AQID', includeDeleted: true }).toString(),
    '__perPage=2&__includeDeleted=true&__cursor=AQID',
    'a cursor goes as __cursor'
  )
  t.equal(listParams({}).toString(), '', 'nothing asked, nothing sent')
})
