/**
 * Counting a key range in O(log n). sorted-btree keeps each internal node's subtree size (for
 * its own bookkeeping) but offers no rank query, and its forRange visits every leaf of the range;
 * this walks root to leaf once per end, adding the sizes of the subtrees left of the path. It
 * reads the tree's node layout (`_root`, `keys`, `children`, `size()`), pinned by the exact
 * dependency version and checked by test/count-rank.test.ts against forRange.
 */
import type { BTree } from './btree.js'

interface Node {
  keys: unknown[]
  isLeaf: boolean
  children?: Node[]
  size: () => number
}

/** Number of entries strictly below `key` (`key` must not be an entry: range ends carry ±Infinity record ids). */
export function rankBelow<K> (tree: BTree<K, unknown>, key: K): number {
  const cmp = tree._compare
  let node = (tree as unknown as { _root: Node })._root
  let rank = 0
  while (!node.isLeaf) {
    // keys[i] of an internal node is the largest key of children[i].
    const children = node.children as Node[]
    const i = lowerBound(node.keys as K[], key, cmp)
    if (i >= children.length) return rank + children.reduce((n, c) => n + c.size(), 0)
    for (let j = 0; j < i; j++) rank += children[j].size()
    node = children[i]
  }
  return rank + lowerBound(node.keys as K[], key, cmp)
}

/** First index whose key is not below `key`. */
function lowerBound<K> (keys: K[], key: K, cmp: (a: K, b: K) => number): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cmp(keys[mid], key) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}
