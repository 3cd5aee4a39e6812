import t from 'tap'
import { EventQueue } from '../src/subscriptions/event-queue.js'

// The sink between the realtime fan-out and a graphql-ws subscription.

const ev = (n: number): any => ({ cursor: `c${n}`, type: 'logs.created', data: { id: String(n) }, frame: () => '' })

t.test('events come out in order; a reset is an item of its own', async (t) => {
  const q = new EventQueue(10, () => {})
  q.deliver(ev(1), false)
  q.reset('r1')
  const waiting = q.next()
  t.same((await waiting).value.cursor, 'c1')
  t.same((await q.next()).value, { reset: 'r1' })
  const later = q.next()
  q.deliver(ev(2), false)
  t.equal((await later).value.cursor, 'c2', 'a waiting reader is woken')
})

t.test(
  'a consumer past `max` live events is dropped (not buffered); replayed events wait for room instead',
  async (t) => {
    let slow = 0
    const q = new EventQueue(4, () => {
      slow++
    })
    for (let i = 0; i < 4; i++) q.deliver(ev(i), true)
    let roomy = false
    const room = q.room().then(() => {
      roomy = true
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    t.notOk(roomy, 'a full queue holds the replay back')
    await q.next()
    await q.next()
    await q.next()
    await room
    t.ok(roomy, 'room once it drained')
    for (let i = 0; i < 5; i++) q.deliver(ev(10 + i), false)
    t.equal(slow, 1, 'the slow consumer is dropped once')
    await t.rejects(q.next(), /slow consumer/)
    q.deliver(ev(99), false)
    await t.rejects(q.next(), /slow consumer/, 'nothing after it')
  }
)

t.test('return() ends it and tells the feed; end() fails the reader', async (t) => {
  let returned = 0
  const q = new EventQueue(4, () => {})
  q.onReturn = () => {
    returned++
  }
  const waiting = q.next()
  await q.return()
  t.same(await waiting, { value: undefined, done: true })
  t.equal(returned, 1)
  t.equal(q[Symbol.asyncIterator](), q)
  await q.room()
  const e = new EventQueue(4, () => {})
  e.end('the event feed stopped')
  await t.rejects(e.next(), /feed stopped/)
})
