/** `sorted-btree` is a CommonJS module whose class is its `default` export; this is the one place that unwraps it. */
import sortedBtree from 'sorted-btree'

export const BTree = sortedBtree.default
export type BTree<K, V> = InstanceType<typeof sortedBtree.default<K, V>>
