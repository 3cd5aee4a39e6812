import t from 'tap'
import { redactUrl } from '../src/index.js'

t.test('link codes and query values never reach a log line', async (t) => {
  t.equal(redactUrl('/link/abcDEF123_-x'), '/link/[redacted]')
  t.equal(redactUrl('/link/abc?x=1'), '/link/[redacted]?[redacted]')
  t.equal(redactUrl('/oauth/callback?refresh_token=rt-123&state=s'), '/oauth/callback?[redacted]')
  t.equal(redactUrl('/oauth/callback?rt-bare-token'), '/oauth/callback?[redacted]')
  t.equal(redactUrl('/chat'), '/chat')
  t.equal(redactUrl('/chat?'), '/chat')
})
