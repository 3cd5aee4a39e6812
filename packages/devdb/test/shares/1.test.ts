// Share 1 of devdb's test files, in one process (see scripts/test-shares.mjs).
import t from 'tap'
import { runShare } from '../../../../scripts/test-shares.mjs'
runShare(t, import.meta.url, 1, 4)
