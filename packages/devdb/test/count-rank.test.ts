import t from 'tap'
import { BTree } from '../src/engine/btree.js'
import { rankBelow } from '../src/engine/btree-rank.js'

// rankBelow reads sorted-btree's node layout: check it against forRange on trees of one, two and
// three levels, after deletions and on both sides of a copy-on-write clone.
t.test('rank differences equal forRange counts', async (t) => {
  for (const size of [50, 5_000, 40_000]) {
    const tree = new BTree<number, undefined>(undefined, (a, b) => a - b, 128)
    for (let i = 0; i < size; i++) tree.set(i * 2, undefined)
    for (let i = 0; i < size; i += 7) tree.delete(i * 2)
    const copy = tree.clone()
    for (let i = 0; i < size / 3; i++) copy.set(i * 2 + 1, undefined)
    let mismatches = 0
    for (let k = 0; k < 300; k++) {
      const lo = Math.random() * size * 2 - 10
      const hi = lo + Math.random() * size
      for (const tr of [tree, copy]) {
        if (rankBelow(tr, hi) - rankBelow(tr, lo) !== tr.forRange(lo, hi, true)) mismatches++
      }
    }
    t.equal(mismatches, 0, `${size} entries`)
    t.equal(rankBelow(tree, Infinity), tree.size)
    t.equal(rankBelow(tree, -Infinity), 0)
  }
})
